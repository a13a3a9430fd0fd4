import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { baseValves, type AnyValvesSchema, type FilterDefinition } from './types.js';
import type { AnyPipeDefinition } from './pipe-definition.js';
import { valvesSpec } from './valves-spec.js';
import { kindOfExport, type ModuleType } from './declared-kind.js';
import { errorMessage, errorStack } from '../../core/util/error-message.js';
import { registerSdkResolution } from './sdk-resolution.js';

/** File endings the loader accepts as filters. */
export const FILTER_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

/** True for names the loader takes as filters: a known ending, not a `.d.ts`, not hidden. */
export function isFilterFileName(name: string): boolean {
  return (
    FILTER_EXTENSIONS.some((extension) => name.endsWith(extension)) && !name.endsWith('.d.ts') && !name.startsWith('.')
  );
}

/** What every imported and validated file has, filter or pipe. */
interface LoadedBase {
  id: string;
  name: string;
  file: string;
  valvesSchema: AnyValvesSchema;
  valvesSpec: Record<string, unknown>;
  userValvesSchema?: AnyValvesSchema;
  userValvesSpec?: Record<string, unknown>;
  /** Where its hooks run: the main thread, or a worker thread (FILTER_ISOLATION). */
  isolation?: 'main' | 'worker';
  /** Resolves when the filter can run a hook now (its worker is up); absent for main-thread filters. */
  ready?(): Promise<void>;
  /** Frees what the filter holds outside the registry (its worker), after onShutdown. */
  release?(): Promise<void>;
}

/** A filter file (made with `defineFilter`): its hooks run around every chat of the models it targets. */
export interface LoadedFilter extends LoadedBase {
  kind: 'filter';
  definition: FilterDefinition<AnyValvesSchema, AnyValvesSchema | undefined>;
}

/** A pipe file (made with `definePipe`): a model, or a manifold of models (see src/runtime/pipes/). */
export interface LoadedPipe extends LoadedBase {
  kind: 'pipe';
  definition: AnyPipeDefinition;
}

/** A file that imported and validated: a filter or a pipe, told apart by `kind`. */
export type LoadedModule = LoadedFilter | LoadedPipe;

/** Why a file did not load, with the line and the kind its default export declares when known. */
export class FilterLoadError extends Error {
  constructor(
    readonly file: string,
    message: string,
    readonly line?: number,
    readonly kind?: ModuleType,
  ) {
    super(message);
  }
}

const isZodObject = (value: unknown): value is AnyValvesSchema => value instanceof z.ZodObject;
const hook = z.function().optional();
const moduleShape = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/, 'id may hold letters, digits, "_", "-" and "." only')
      .optional(),
    name: z.string().optional(),
    valves: z.custom<AnyValvesSchema>(isZodObject, 'valves must be a zod object schema').optional(),
    userValves: z.custom<AnyValvesSchema>(isZodObject, 'userValves must be a zod object schema').optional(),
    flags: z
      .array(z.object({ key: z.string(), kind: z.enum(['boolean', 'integer', 'number', 'string']) }).loose())
      .optional(),
    defaultFlagsValve: z.string().optional(),
    inlet: hook,
    outlet: hook,
    onStartup: hook,
    onShutdown: hook,
    onValvesUpdated: hook,
    // Pipes (src/runtime/pipes/): `definePipe` sets kind; a pipe must have a `pipe` function.
    kind: z.enum(['filter', 'pipe']).optional(),
    pipe: hook,
    models: z.union([z.array(z.object({ id: z.string(), name: z.string().optional() })), z.function()]).optional(),
    modelsTtlMs: z.union([z.number().nonnegative(), z.function()]).optional(),
  })
  .refine((shape) => shape.kind !== 'pipe' || shape.pipe !== undefined, {
    message: 'a pipe needs a pipe() function',
    path: ['pipe'],
  });

/** The fields a filter or pipe definition may have (what moduleShape reads). */
const MODULE_KEYS = new Set(Object.keys(moduleShape.shape));

/** The stem of a filter file: `filters/context.ts` → `context`. */
export function fileStem(file: string): string {
  return path.basename(file).replace(/\.(m?ts|m?js)$/, '');
}

/** Find `file:LINE` in an error message or stack. */
function lineOf(error: unknown, file: string): number | undefined {
  const text = `${errorMessage(error) ?? ''}\n${errorStack(error) ?? ''}`;
  const escaped = path.basename(file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`${escaped}(?:\\?[^:\\s]*)?:(\\d+)(?::\\d+)?`).exec(text);
  return match ? Number(match[1]) : undefined;
}

function requireDefaults(schema: AnyValvesSchema, label: string, file: string): void {
  const parsed = schema.safeParse({});
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))].join(', ');
    throw new FilterLoadError(file, `${label} field(s) without a default: ${fields}`);
  }
}

/** `defaultFlagsValve` names one of the file's user valves, and that valve holds a string (its default is one). */
function requireDefaultFlagsValve(definition: LoadedFilter['definition']): void {
  const name: string | undefined = definition.defaultFlagsValve;
  if (name === undefined) return;
  if (!definition.userValves?.shape[name]) throw new Error(`defaultFlagsValve "${name}" is not one of its userValves`);
  if (typeof definition.userValves.parse({})[name] !== 'string')
    throw new Error(`defaultFlagsValve "${name}" must be a string user valve`);
}

let generation = 0;

/**
 * Import a filter file (fresh each time: the URL carries a generation counter, so an edited
 * file is re-evaluated) and validate its default export. Throws FilterLoadError.
 */
export async function loadFilterFile(file: string): Promise<LoadedModule> {
  // `import … from 'eunoe'` resolves from any folder, and `.ts` compiles, in this thread too.
  await registerSdkResolution();
  let imported: { default?: unknown };
  try {
    imported = (await import(`${pathToFileURL(file).href}?v=${++generation}`)) as { default?: unknown };
  } catch (error) {
    const message = errorMessage(error);
    throw new FilterLoadError(file, `import failed: ${message.split('\n').slice(0, 3).join(' ')}`, lineOf(error, file));
  }
  const parsed = moduleShape.safeParse(imported.default);
  if (!parsed.success) {
    const detail =
      imported.default === undefined
        ? 'no default export (export default defineFilter({...}))'
        : parsed.error.issues
            .map((issue) => `${issue.path.join('.') || 'default export'}: ${issue.message}`)
            .join('; ');
    throw new FilterLoadError(file, `wrong export shape: ${detail}`, undefined, kindOfExport(imported.default));
  }
  const known = Object.keys(imported.default as object).filter((key) => MODULE_KEYS.has(key));
  if (known.length === 0) {
    // `export default { hello: 1 }` would load as a filter that does nothing: refused, naming what it has.
    const keys = Object.keys(imported.default as object);
    throw new FilterLoadError(
      file,
      `wrong export shape: the default export has none of a filter's fields (name, valves, inlet, outlet…)${keys.length > 0 ? `, only ${keys.join(', ')}` : ''}; export default defineFilter({...})`,
      undefined,
      kindOfExport(imported.default),
    );
  }
  const definition = imported.default as LoadedFilter['definition'];
  const id = definition.id ?? fileStem(file);
  const kind = (imported.default as { kind?: 'filter' | 'pipe' }).kind === 'pipe' ? 'pipe' : 'filter';
  // A schema without the base fields gets them, so /models can always read pipelines and priority.
  const own = definition.valves ?? (kind === 'pipe' ? z.object({}) : baseValves);
  // Pipes keep their own valves only: `pipelines` and `priority` mean nothing for a model.
  const valvesSchema = (
    kind === 'pipe' || ('pipelines' in own.shape && 'priority' in own.shape) ? own : baseValves.extend(own.shape)
  ) as AnyValvesSchema;
  try {
    requireDefaults(valvesSchema, 'valves', file);
    if (definition.userValves) requireDefaults(definition.userValves, 'userValves', file);
    requireDefaultFlagsValve(definition);
  } catch (error) {
    throw new FilterLoadError(file, errorMessage(error), undefined, kindOfExport(definition));
  }
  const base = {
    id,
    name: definition.name ?? id,
    file,
    valvesSchema,
    valvesSpec: valvesSpec(valvesSchema),
    userValvesSchema: definition.userValves,
    userValvesSpec: definition.userValves ? valvesSpec(definition.userValves, 'UserValves') : undefined,
  };
  return kind === 'pipe'
    ? { ...base, kind, definition: definition as unknown as AnyPipeDefinition }
    : { ...base, kind, definition };
}
