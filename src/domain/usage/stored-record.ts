import type { UsageRecord } from './types.js';

/**
 * A ledger entry written by an older version, read back: the record when the entry is JSON of an object, else
 * undefined (a damaged entry must not stop a one-time import or backfill of all the others). The caller checks the
 * fields it needs.
 */
export function storedRecord(json: string): Partial<UsageRecord> | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Partial<UsageRecord>)
      : undefined;
  } catch {
    return undefined;
  }
}
