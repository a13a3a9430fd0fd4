import { readFileSync } from 'node:fs';

/** What a pipelines file is, as `GET /pipelines` lists it; `unknown` when a broken file does not tell. */
export type ModuleType = 'filter' | 'pipe' | 'manifold';
export type DeclaredKind = ModuleType | 'unknown';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The kind a default export declares (`definePipe` marks pipes; `models` makes a manifold), if it is an object. */
export function kindOfExport(value: unknown): ModuleType | undefined {
  if (!isObject(value)) return undefined;
  if (value.kind === 'pipe') return value.models === undefined ? 'pipe' : 'manifold';
  return 'filter';
}

/**
 * What `GET /pipelines` calls a loaded module: `filter`, `pipe`, or `manifold` (a pipe with `models`). Read from the
 * loader's `kind` and the definition, so a pipe isolated in a worker (whose definition has no `kind`) is one too.
 */
export function moduleTypeOf(module: { kind?: 'filter' | 'pipe'; definition: object }): ModuleType {
  if (module.kind !== 'pipe') return 'filter';
  return 'models' in module.definition && module.definition.models !== undefined ? 'manifold' : 'pipe';
}

/**
 * The kind a file's source declares, for a file that did not import (a syntax error, a missing
 * module): `definePipe(` with a `models` member is a manifold, without one a pipe; `defineFilter(`
 * a filter; anything else (a factory such as `createOpenAIProxy()`) is `unknown`.
 */
export function kindOfSource(file: string): DeclaredKind {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return 'unknown';
  }
  if (/\bdefinePipe\s*(<[^>]*>\s*)?\(/.test(source)) return /\bmodels\s*[:(]/.test(source) ? 'manifold' : 'pipe';
  if (/\bdefineFilter\s*(<[^>]*>\s*)?\(/.test(source)) return 'filter';
  return 'unknown';
}
