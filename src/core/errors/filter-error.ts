import { EunoeError } from './eunoe-error.js';

/**
 * What a filter throws to stop a request with its own status and a message the user
 * reads in Open WebUI, e.g. `throw new FilterError(429, 'Your monthly budget of $20.00 is used up')`.
 */
export class FilterError extends EunoeError {
  constructor(status: number, message: string, options?: { cause?: unknown; code?: string }) {
    // Only error statuses make sense here; anything else would tell Open WebUI the request succeeded.
    const valid = Number.isInteger(status) && status >= 400 && status <= 599;
    super(options?.code ?? 'ERR_FILTER_REJECTED', message, valid ? status : 500, options);
  }
}
