import { readFileSync } from 'node:fs';
import { fieldTitle } from '../../../runtime/host/valves-spec.js';
import { pyLiteral, pyString, pythonField } from './python-fields.js';

/** What the Function needs to know of one filter: its id, display name and user-valve spec (valvesSpec). */
export interface FunctionFilter {
  id: string;
  name: string;
  userValvesSpec?: { properties?: Record<string, Record<string, unknown>> };
}

export interface RenderOptions {
  /** Default of the `eunoe_url` valve: Eunoe's address as Open WebUI's server reaches it. */
  url: string;
  /** Eunoe's version (the frontmatter's `version`). */
  version: string;
  /**
   * Render `self.toggle = True`: Open WebUI then runs the Function only in chats where the user switched it on.
   * A file option, not a valve: Open WebUI reads `toggle` before it loads the valves of a request and records it
   * (the chip in the chat input) only when the file is saved.
   */
  toggle?: boolean;
}

const TEMPLATE = readFileSync(new URL('./function-template.py', import.meta.url), 'utf8');

/** `spend-limit` → `spend_limit`: a Python identifier part (never empty, never starting with a digit). */
function identifier(text: string): string {
  const clean = text.replace(/[^A-Za-z0-9_]/g, '_').replace(/^_+/, '');
  return /^[A-Za-z]/.test(clean) ? clean : `f_${clean}`;
}

/** One UserValves field of the Function: its name there, the filter and the filter's own field. */
export interface FunctionField {
  name: string;
  filter: string;
  field: string;
  line: string;
}

/**
 * The UserValves fields for these filters: `<filter>_<field>` (`context_max_tokens`), titled
 * "<filter name> · <field title>"; a name that two filters would share gets a counter. Filters by
 * id, fields in schema order, so the same filters always give the same fields.
 */
export function functionFields(filters: readonly FunctionFilter[]): FunctionField[] {
  const fields: FunctionField[] = [];
  const taken = new Set<string>();
  for (const filter of [...filters].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    for (const [field, property] of Object.entries(filter.userValvesSpec?.properties ?? {})) {
      let name = `${identifier(filter.id)}_${identifier(field)}`.toLowerCase();
      // pydantic reserves `model_` names.
      if (name.startsWith('model_')) name = `f_${name}`;
      for (let suffix = 2; taken.has(name); suffix++) name = `${name.replace(/_\d+$/, '')}_${suffix}`;
      taken.add(name);
      const title = `${filter.name || filter.id} · ${fieldTitle(field)}`;
      fields.push({ name, filter: filter.id, field, line: pythonField(name, title, property) });
    }
  }
  return fields;
}

/**
 * The Open WebUI Filter Function for these filters (see function-template.py): one Python file,
 * byte-for-byte the same for the same filters and options.
 */
export function renderFunction(filters: readonly FunctionFilter[], options: RenderOptions): string {
  const fields = functionFields(filters);
  const targets = fields.length
    ? `{\n${fields.map((field) => `    ${pyString(field.name)}: (${pyString(field.filter)}, ${pyString(field.field)}),`).join('\n')}\n}`
    : '{}';
  const ids = [...filters].map((filter) => filter.id).sort();
  const replacements: Record<string, string> = {
    __EUNOE_VERSION__: options.version.replace(/[^\w.+-]/g, ''),
    __EUNOE_FILTER_LIST__: ids.length ? ids.join(', ').replace(/[^\w ,.-]/g, '') : 'none loaded',
    __EUNOE_USER_VALVE_TARGETS__: targets,
    __EUNOE_USER_VALVE_FIELDS__: fields.length ? fields.map((field) => field.line).join('\n') : '        pass',
    __EUNOE_DEFAULT_URL__: pyLiteral(options.url),
    __EUNOE_TOGGLE__: options.toggle
      ? '        # Rendered with toggle: Open WebUI runs this Function only in chats where the user switched it on.\n        self.toggle = True'
      : '',
  };
  return TEMPLATE.replace(/__EUNOE_[A-Z_]+__/g, (token) => replacements[token] ?? token);
}
