import { StateUnavailableError } from '../../core/errors/index.js';
import { StateValueError } from '../state-value-error.js';

/** Reply errors that mean the caller misused a value, not that Redis is unavailable. */
const VALUE_ERRORS = /^(WRONGTYPE|ERR value is not|ERR increment would produce NaN|ERR .*not a valid float)/;

/**
 * Map anything a Redis call threw to a typed error: misuse of a value → StateValueError;
 * everything else (connection closed, timeout, LOADING, READONLY, OOM, auth) →
 * StateUnavailableError, which callers treat as "degrade".
 */
export function toStateError(error: unknown, what: string): Error {
  if (error instanceof StateUnavailableError || error instanceof StateValueError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (VALUE_ERRORS.test(message)) return new StateValueError(`Redis ${what}: ${message}`, { cause: error });
  return new StateUnavailableError(`Redis ${what}: ${message}`, { cause: error });
}

/** True for errors that should make a ledger append queue rather than fail. */
export function isUnavailable(error: unknown): boolean {
  return error instanceof StateUnavailableError;
}
