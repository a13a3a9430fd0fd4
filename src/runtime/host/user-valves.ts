import { ValidationError } from '../../core/errors/index.js';
import type { ActiveFilter, ActiveModule } from './module-registry.js';
import type { ValvesRepository } from './valves-repository.js';
import { coerceValves, mergeSavedValves } from './coerce-valves.js';
import { isForbiddenKey } from './valve-keys.js';
import type { PipelineUser } from './types.js';
import type { Logger } from '../../core/util/logger.js';

/** True when the filter's `pipelines` valve targets this model (`*` = all). */
export function targets(filter: ActiveFilter, model: unknown): boolean {
  const pipelines = filter.valves.pipelines;
  return pipelines.includes('*') || (typeof model === 'string' && pipelines.includes(model));
}

/**
 * A user's valves for one call, in this order of precedence: values that came with the request
 * (`request`: the Open WebUI Function's UserValves, validated strictly), then `user.valves` of a
 * Pipelines envelope (lenient: an invalid field falls back and is logged), then the values stored
 * in Eunoe for that user, then the schema's defaults. Prototype keys are never applied.
 *
 * With `request`, a value that does not validate throws a ValidationError (400) naming the filter
 * and field, and nothing is applied; a field the filter does not have is ignored and logged (a
 * Function generated before the filter changed still works).
 */
export async function userValvesFor(
  filter: ActiveModule,
  user: PipelineUser | null,
  valves: ValvesRepository,
  log: Logger,
  request?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (!filter.userValvesSchema || !filter.userValvesSpec) return {};
  const saved = user?.id ? await valves.loadUser(filter.id, String(user.id)) : undefined;
  let result = mergeSavedValves(filter.userValvesSchema, saved).values as Record<string, unknown>;
  const inline = user?.valves;
  if (inline && typeof inline === 'object' && !Array.isArray(inline))
    result = applyLenient(filter, result, inline, log);
  return request ? applyStrict(filter, result, request, log) : result;
}

function applyLenient(
  filter: ActiveModule,
  base: Record<string, unknown>,
  inline: Record<string, unknown>,
  log: Logger,
): Record<string, unknown> {
  const result = { ...base };
  for (const [key, value] of Object.entries(inline)) {
    // Never assigned, not even to try: `result[key] = …` with `__proto__` would swap the prototype.
    if (isForbiddenKey(key)) {
      log.warn({ filter: filter.id, field: key }, 'ignored a forbidden inline user valve key');
      continue;
    }
    try {
      const checked = coerceValves(filter.userValvesSchema!, filter.userValvesSpec!, {
        ...result,
        [key]: value,
      }) as Record<string, unknown>;
      result[key] = checked[key];
    } catch (error) {
      log.warn(
        { filter: filter.id, field: key, err: error instanceof Error ? error.message : String(error) },
        'ignored an invalid inline user valve',
      );
    }
  }
  return result;
}

function applyStrict(
  filter: ActiveModule,
  base: Record<string, unknown>,
  request: Record<string, unknown>,
  log: Logger,
): Record<string, unknown> {
  const known = filter.userValvesSpec?.properties ?? {};
  const candidate: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(request)) {
    if (isForbiddenKey(key) || !Object.hasOwn(known, key)) {
      log.warn({ filter: filter.id, field: key }, 'ignored a user valve the filter does not have');
      continue;
    }
    // null is the Function's "Default": the stored or default value stays.
    if (value !== null) candidate[key] = value;
  }
  try {
    return coerceValves(filter.userValvesSchema!, filter.userValvesSpec!, candidate) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const fields = error.fields.map((field) => ({
      path: `user_valves.${filter.id}.${field.path}`,
      message: field.message,
    }));
    throw new ValidationError(
      `Invalid user valves for ${filter.id}: ${fields.map((field) => `${field.path}: ${field.message}`).join('; ')}`,
      fields,
    );
  }
}
