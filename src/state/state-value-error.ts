import { EunoeError } from '../errors/index.js';

/** 500: a value cannot be stored or used as asked (not JSON, or `increment` on a non-number). A bug, not an outage. */
export class StateValueError extends EunoeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_STATE_VALUE', message, 500, options);
  }
}
