import { z } from 'zod';

/** `max_tokens` → "Max Tokens", `OPENAI_API_KEY` → "Openai Api Key" (pydantic's title rule). */
export function fieldTitle(name: string): string {
  return name
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(' ');
}

type JsonSchema = Record<string, unknown> & { type?: unknown; properties?: Record<string, JsonSchema> };

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** Rewrite one property the way pydantic v2 would print it, so Open WebUI's admin form renders it. */
function pydanticProperty(name: string, schema: JsonSchema): JsonSchema {
  const property: JsonSchema = { title: fieldTitle(name), ...schema };
  // A secret valve (see secret-valves.ts) is a password input in Open WebUI's form.
  if (property.secret === true) property.format = 'password';
  // zod prints nullable as `type: [X, "null"]`; pydantic prints `anyOf` with no top-level type.
  if (Array.isArray(property.type)) {
    const { type, ...rest } = property;
    const types = type as string[];
    const anyOf = types.map((entry) =>
      entry === 'array' && rest.items ? { type: entry, items: rest.items } : { type: entry },
    );
    delete rest.items;
    return { ...rest, anyOf };
  }
  // zod adds ±MAX_SAFE_INTEGER bounds to every int; they are noise in a form.
  if (typeof property.minimum === 'number' && SAFE_INTEGER_BOUNDS.has(Math.abs(property.minimum)))
    delete property.minimum;
  if (typeof property.maximum === 'number' && SAFE_INTEGER_BOUNDS.has(Math.abs(property.maximum)))
    delete property.maximum;
  return property;
}

/**
 * JSON Schema of a valves schema in the shape Open WebUI's admin form reads
 * (`properties` with `title`, `type`, `default`, `description`, `enum`, `items`).
 */
export function valvesSpec(schema: z.ZodObject<z.ZodRawShape>, title = 'Valves'): JsonSchema {
  const raw = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const properties = Object.fromEntries(
    Object.entries(raw.properties ?? {}).map(([name, property]) => [name, pydanticProperty(name, property)]),
  );
  const spec: JsonSchema = { title, type: 'object', properties };
  if (Array.isArray(raw.required) && raw.required.length > 0) spec.required = raw.required;
  return spec;
}
