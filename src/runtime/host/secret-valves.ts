import type { z } from 'zod';

/**
 * What a secret valve reads as from the API. An update that sends it back (Open WebUI's form
 * resends every value it was given) keeps the stored secret; any other value replaces it.
 */
export const SECRET_MASK = '********';

type Spec = { properties?: Record<string, unknown> };

/**
 * Mark a valve as secret: masked by `GET …/valves`, kept on an update carrying the mask, shown as
 * a password field by Open WebUI's form (`format: "password"` in the spec).
 *
 * @example
 * valves: baseValves.extend({ api_key: secret(z.string().default('')).describe('Upstream key') })
 */
export function secret<T extends z.ZodType>(schema: T): T {
  return schema.meta({ ...(schema.meta() ?? {}), secret: true }) as T;
}

/** Names of the secret fields of a valves spec (properties whose JSON Schema carries `secret: true`). */
export function secretKeys(spec: Spec): string[] {
  return Object.entries(spec.properties ?? {})
    .filter(([, property]) => (property as { secret?: unknown } | undefined)?.secret === true)
    .map(([name]) => name);
}

/** A copy of `values` with every non-empty secret replaced by SECRET_MASK (an empty one stays empty: "not set"). */
export function maskSecrets<T extends Record<string, unknown>>(values: T, spec: Spec): T {
  const keys = secretKeys(spec);
  if (keys.length === 0) return values;
  const masked: Record<string, unknown> = { ...values };
  for (const key of keys) {
    const value = masked[key];
    if (value !== undefined && value !== null && value !== '') masked[key] = SECRET_MASK;
  }
  return masked as T;
}

/**
 * The update `input` with each secret field that carries SECRET_MASK replaced by the stored value
 * (absent when nothing is stored, so the default applies), before validation.
 */
export function keepMaskedSecrets(input: unknown, spec: Spec, stored: Record<string, unknown>): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const keys = secretKeys(spec).filter((key) => (input as Record<string, unknown>)[key] === SECRET_MASK);
  if (keys.length === 0) return input;
  const kept: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const key of keys) {
    if (stored[key] === undefined) delete kept[key];
    else kept[key] = stored[key];
  }
  return kept;
}
