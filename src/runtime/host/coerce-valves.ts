import type { z } from 'zod';
import { ValidationError } from '../../core/errors/index.js';
import { badValveKeys } from './valve-keys.js';
import { jsonDepthExceeds } from '../../core/util/json-depth.js';

/** Deepest nesting of a valve typed as JSON text in the form (the body's own depth is checked by JSON_MAX_DEPTH). */
export const VALVE_JSON_MAX_DEPTH = 100;

/** JSON.parse of form text, refusing text nested so deep that saving it would overflow the stack. */
function parseValveJson(text: string): unknown {
  if (jsonDepthExceeds(text, VALVE_JSON_MAX_DEPTH)) {
    throw new ValidationError(`Invalid valves: a JSON value is nested deeper than ${VALVE_JSON_MAX_DEPTH} levels`);
  }
  return JSON.parse(text) as unknown;
}

type PropertySpec = { type?: unknown; anyOf?: Array<{ type?: unknown; items?: PropertySpec }>; items?: PropertySpec };

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 'y', 't']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off', 'n', 'f']);

/** The JSON types a property accepts, nullable included. */
function typesOf(spec: PropertySpec | undefined): string[] {
  if (!spec) return [];
  if (typeof spec.type === 'string') return [spec.type];
  if (Array.isArray(spec.anyOf)) return spec.anyOf.map((entry) => String(entry.type ?? ''));
  return [];
}

function itemsOf(spec: PropertySpec): PropertySpec | undefined {
  return spec.items ?? spec.anyOf?.find((entry) => entry.type === 'array')?.items;
}

/** Coerce one value like pydantic's lax mode: "10" → 10, "true" → true, "a, b" → ["a","b"]. */
function coerceValue(value: unknown, spec: PropertySpec | undefined): unknown {
  const types = typesOf(spec);
  if (value === null || types.length === 0) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (types.includes('null') && (text === '' || text.toLowerCase() === 'null' || text.toLowerCase() === 'none'))
      return null;
    // Objects (e.g. per-role caps) are typed as JSON in Open WebUI's plain text input.
    if (types.includes('object') && (text.startsWith('{') || text === '')) {
      if (text === '') return {};
      try {
        return parseValveJson(text);
      } catch (error) {
        if (error instanceof ValidationError) throw error;
        return value;
      }
    }
    if (types.includes('array') && text.startsWith('[')) {
      try {
        const parsed = parseValveJson(text);
        if (Array.isArray(parsed)) return parsed.map((item) => coerceValue(item, itemsOf(spec!)));
      } catch (error) {
        if (error instanceof ValidationError) throw error;
        // not JSON: a comma-split list, as Open WebUI's form sends arrays
      }
    }
    if (types.includes('array')) {
      const items = text === '' ? [] : text.split(',').map((part) => part.trim());
      return items.map((item) => coerceValue(item, itemsOf(spec!)));
    }
    if ((types.includes('integer') || types.includes('number')) && text !== '' && Number.isFinite(Number(text)))
      return Number(text);
    if (types.includes('boolean')) {
      if (TRUE_WORDS.has(text.toLowerCase())) return true;
      if (FALSE_WORDS.has(text.toLowerCase())) return false;
    }
    return value;
  }
  if (Array.isArray(value) && types.includes('array')) return value.map((item) => coerceValue(item, itemsOf(spec!)));
  // pydantic lax mode: 1/0 for booleans.
  if (
    typeof value === 'number' &&
    types.includes('boolean') &&
    !types.includes('number') &&
    (value === 0 || value === 1)
  ) {
    return value === 1;
  }
  return value;
}

/**
 * Coerce what Open WebUI's admin form sends (original JSON values mixed with edited strings)
 * and validate with zod. Throws ValidationError (400) with one entry per bad field; keys that
 * are not valves, and prototype keys (`__proto__`, `constructor`, `prototype`), are rejected
 * before anything is assigned.
 */
export function coerceValves<S extends z.ZodObject<z.ZodRawShape>>(
  schema: S,
  spec: { properties?: Record<string, unknown> },
  input: unknown,
): z.infer<S> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ValidationError('Valves must be a JSON object', [{ path: '', message: 'expected an object' }]);
  }
  const badKeys = badValveKeys(schema, input);
  if (badKeys.length) {
    throw new ValidationError(
      `Invalid valves: ${badKeys.map((field) => `${field.path}: ${field.message}`).join('; ')}`,
      badKeys,
    );
  }
  const coerced: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    coerced[key] = coerceValue(value, spec.properties?.[key] as PropertySpec | undefined);
  }
  const parsed = schema.safeParse(coerced);
  const fields = parsed.success
    ? unknownKeys(coerced, parsed.data, [])
    : parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  if (fields.length > 0) {
    const summary = fields.map((field) => `${field.path || 'valves'}: ${field.message}`).join('; ');
    throw new ValidationError(`Invalid valves: ${summary}`, fields);
  }
  return parsed.data as z.infer<S>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Keys of the input, at any depth, that the parsed valves do not have: a nested object schema drops a key it does
 * not know (`{"user": {"monthly": 5}}` would save `{"user": {}}`, its defaults), so each is refused by name instead.
 * Values a schema turns into something else than an object are not compared.
 */
function unknownKeys(
  input: unknown,
  output: unknown,
  path: readonly string[],
): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  if (Array.isArray(input) && Array.isArray(output) && input.length === output.length) {
    input.forEach((item, index) => issues.push(...unknownKeys(item, output[index], [...path, String(index)])));
  } else if (isPlainObject(input) && isPlainObject(output)) {
    for (const [key, value] of Object.entries(input)) {
      if (Object.hasOwn(output, key)) issues.push(...unknownKeys(value, output[key], [...path, key]));
      else issues.push({ path: path.join('.'), message: `Unrecognized key: ${JSON.stringify(key)}` });
    }
  }
  return issues;
}

/**
 * An update merged over the `current` values, then coerced and validated like coerceValves: a field the update
 * omits keeps its current value, a field sent as `null` goes back to its default (Open WebUI's "Default" button
 * sends null; a curl `{"pipelines": "*"}` changes that one valve and nothing else).
 */
export function mergeValvesUpdate<S extends z.ZodObject<z.ZodRawShape>>(
  schema: S,
  spec: { properties?: Record<string, unknown> },
  input: unknown,
  current: Record<string, unknown>,
): z.infer<S> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return coerceValves(schema, spec, input);
  const sent = input as Record<string, unknown>;
  const merged: Record<string, unknown> = {};
  // Own keys of the schema only: the current values never bring back a field the schema no longer has.
  for (const key of Object.keys(schema.shape)) if (key in current && !(key in sent)) merged[key] = current[key];
  for (const [key, value] of Object.entries(sent)) if (value !== null) merged[key] = value;
  // Bad keys are refused as sent (badValveKeys reads the update itself, nulls included).
  const badKeys = badValveKeys(schema, sent);
  if (badKeys.length) return coerceValves(schema, spec, sent);
  return coerceValves(schema, spec, merged);
}

/**
 * Merge saved values over the defaults, dropping fields that no longer exist or no
 * longer validate (each reported in `dropped`), so an old valves file never breaks a filter.
 */
export function mergeSavedValves<S extends z.ZodObject<z.ZodRawShape>>(
  schema: S,
  saved: unknown,
): { values: z.infer<S>; dropped: string[] } {
  const dropped: string[] = [];
  const known = new Set(Object.keys(schema.shape));
  const candidate: Record<string, unknown> = {};
  if (saved && typeof saved === 'object' && !Array.isArray(saved)) {
    for (const [key, value] of Object.entries(saved)) {
      if (known.has(key))
        candidate[key] = structuredClone(value); // a copy: stray keys are deleted from it
      else dropped.push(`${key} (no longer a valve)`);
    }
  }
  for (let attempt = 0; attempt <= known.size; attempt++) {
    const parsed = schema.safeParse(candidate);
    if (parsed.success) return { values: parsed.data, dropped };
    // A key a strict object does not have (a hand-edited file) is dropped alone: the rest of its valve stays.
    const strays = parsed.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    if (strays.length > 0 && strays.length === parsed.error.issues.length) {
      for (const issue of strays) {
        const owner = issue.path.reduce<unknown>(
          (value, key) => (isPlainObject(value) ? value[String(key)] : undefined),
          candidate,
        );
        if (!isPlainObject(owner)) continue;
        for (const key of issue.keys) {
          delete owner[key];
          dropped.push(`${[...issue.path, key].join('.')} (not a key of this valve)`);
        }
      }
      continue;
    }
    const bad = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')));
    for (const key of bad) {
      if (key in candidate) {
        delete candidate[key];
        dropped.push(`${key} (invalid saved value)`);
      }
    }
    if (![...bad].some((key) => key !== '')) break;
  }
  // Defaults alone must parse; if they don't, the filter's schema itself is broken.
  return { values: schema.parse({}), dropped };
}
