/**
 * Pydantic 2 fields from the JSON Schema of a filter's user valves (`valvesSpec`), written so that
 * Open WebUI's valves form renders them and the values it sends validate on Eunoe's side again.
 */

type Property = Record<string, unknown> & {
  type?: unknown;
  anyOf?: Property[];
  enum?: unknown[];
  items?: Property;
};

/** Open WebUI rewrites these four substrings anywhere in a Function's text (utils/plugin.py replace_imports). */
const REWRITTEN = /\bfrom (utils|apps|main|config)\b/g;
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** A Python string literal (JSON's escapes are Python's), with Open WebUI's import rewriting defused. */
export function pyString(text: string): string {
  return JSON.stringify(text).replace(REWRITTEN, 'from\\x20$1');
}

/** A Python literal for a JSON value. */
export function pyLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'None';
  if (typeof value === 'string') return pyString(value);
  if (Array.isArray(value)) return `[${value.map(pyLiteral).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([key, item]) => `${pyString(key)}: ${pyLiteral(item)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return pyString(String(value));
}

const SCALARS: Record<string, string> = { string: 'str', integer: 'int', number: 'float', boolean: 'bool' };

/** The property's types other than null, and whether null is one of them. */
function typesOf(property: Property): { types: Property[]; nullable: boolean } {
  if (Array.isArray(property.anyOf)) {
    const types = property.anyOf.filter((entry) => entry.type !== 'null');
    return { types, nullable: types.length < property.anyOf.length };
  }
  if (Array.isArray(property.type)) {
    const names = (property.type as unknown[]).map(String);
    const { type: _type, ...rest } = property;
    return {
      types: names.filter((name) => name !== 'null').map((name) => ({ ...rest, type: name })),
      nullable: names.includes('null'),
    };
  }
  return { types: [property], nullable: false };
}

/** What a field is in Python: its annotation, and whether its value travels as JSON text (objects). */
interface Shape {
  annotation: string;
  jsonText?: boolean;
  bounds: string[];
}

function boundsOf(property: Property): string[] {
  const bounds: string[] = [];
  const add = (name: string, key: string) => {
    const value = property[key];
    if (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) < SAFE_INTEGER)
      bounds.push(`${name}=${value}`);
  };
  add('ge', 'minimum');
  add('le', 'maximum');
  add('gt', 'exclusiveMinimum');
  add('lt', 'exclusiveMaximum');
  return bounds;
}

/** `Literal[...]` for an enum or const of strings and numbers (a select in Open WebUI's form). */
function literalOf(property: Property): string | undefined {
  const choices = Array.isArray(property.enum) ? property.enum : 'const' in property ? [property.const] : [];
  if (choices.length === 0 || !choices.every((value) => typeof value === 'string' || typeof value === 'number'))
    return undefined;
  return `Literal[${choices.map(pyLiteral).join(', ')}]`;
}

function shapeOf(property: Property): Shape {
  const { types, nullable } = typesOf(property);
  const wrap = (shape: Shape): Shape => (nullable ? { ...shape, annotation: `Optional[${shape.annotation}]` } : shape);
  const literal = literalOf(property) ?? (types.length === 1 ? literalOf(types[0]!) : undefined);
  if (literal) return wrap({ annotation: literal, bounds: [] });
  if (types.length !== 1) return { annotation: 'Any', bounds: [] };
  const only = types[0]!;
  const type = String(only.type ?? '');
  if (SCALARS[type]) return wrap({ annotation: SCALARS[type]!, bounds: boundsOf(only) });
  if (type === 'array') {
    const item = SCALARS[String(only.items?.type ?? '')];
    return wrap({ annotation: item ? `list[${item}]` : 'list', bounds: [] });
  }
  // Objects (records, nested shapes) are JSON text in Open WebUI's one-line input; Eunoe parses it back.
  if (type === 'object') return wrap({ annotation: 'str', jsonText: true, bounds: [] });
  return { annotation: 'Any', bounds: [] };
}

/** One `name: annotation = Field(...)` line of a UserValves class (indented for the class body). */
export function pythonField(name: string, title: string, property: Property): string {
  const shape = shapeOf(property);
  const hasDefault = 'default' in property;
  let fallback: unknown = hasDefault ? property.default : null;
  if (shape.jsonText && fallback !== null && typeof fallback !== 'string') fallback = JSON.stringify(fallback);
  const args = [`default=${pyLiteral(fallback)}`, `title=${pyString(title)}`];
  const description = typeof property.description === 'string' ? property.description : '';
  const suffix = shape.jsonText ? ' (JSON)' : '';
  if (description || suffix) args.push(`description=${pyString(`${description}${suffix}`.trim())}`);
  args.push(...shape.bounds);
  if (property.secret === true || property.format === 'password')
    args.push('json_schema_extra={"input": {"type": "password"}}');
  // A field with no default in the schema becomes optional here: Open WebUI builds UserValves() with no arguments.
  const annotation =
    !hasDefault && !shape.annotation.startsWith('Optional[') && shape.annotation !== 'Any'
      ? `Optional[${shape.annotation}]`
      : shape.annotation;
  return `        ${name}: ${annotation} = Field(${args.join(', ')})`;
}
