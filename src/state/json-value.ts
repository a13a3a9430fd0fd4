import { isDeepStrictEqual } from 'node:util';
import { StateValueError } from './state-value-error.js';
import { errorMessage } from '../core/util/error-message.js';

/** Serialise a document value to JSON; StateValueError when it has no JSON form (undefined, a function, a BigInt). */
export function encodeJson(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new StateValueError(`State value for "${key}" is not JSON-serialisable: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (text === undefined) throw new StateValueError(`State value for "${key}" is not JSON (got ${typeof value})`);
  return text;
}

/** Parse stored JSON; undefined for an absent value. */
export function decodeJson<T>(text: string | null | undefined): T | undefined {
  return text === null || text === undefined ? undefined : (JSON.parse(text) as T);
}

/**
 * True when the stored JSON text (null = absent) matches `expected` the way compareAndSet
 * promises: `undefined` means absent, anything else is compared as its JSON form, deeply
 * and regardless of object key order.
 */
export function storedEquals(stored: string | null | undefined, expected: unknown): boolean {
  const absent = stored === null || stored === undefined;
  if (expected === undefined) return absent;
  if (absent) return false;
  const normalised = JSON.parse(encodeJson('expected', expected)) as unknown;
  return isDeepStrictEqual(JSON.parse(stored), normalised);
}

/** A TTL in ms to an absolute expiry (epoch ms), or null for none. */
export function expiryFrom(ttlMs: number | undefined, now: number): number | null {
  return ttlMs !== undefined && ttlMs > 0 ? now + ttlMs : null;
}
