import type { z } from 'zod';

/** Keys that could reach an object's prototype when assigned: never a valve, never applied. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/**
 * The keys of a valves update that must not be applied: prototype keys (`__proto__`,
 * `constructor`, `prototype`) and keys that are not valves of `schema`, one issue each.
 */
export function badValveKeys(
  schema: z.ZodObject<z.ZodRawShape>,
  input: object,
): Array<{ path: string; message: string }> {
  const known = new Set(Object.keys(schema.shape));
  const issues: Array<{ path: string; message: string }> = [];
  for (const key of Object.keys(input)) {
    if (isForbiddenKey(key)) issues.push({ path: key, message: 'forbidden key' });
    else if (!known.has(key)) issues.push({ path: key, message: 'not a valve of this filter' });
  }
  return issues;
}
