import type { ActiveFilter, ActivePipe, ModuleRegistry } from '../host/module-registry.js';
import type { ManifoldModels } from './manifold-models.js';

/** One model a pipe offers: the pipe itself, or one child of a manifold. */
export interface PipeModel {
  /** `<pipe id>` or `<pipe id>.<child id>`. */
  id: string;
  /** The pipe's name, or the manifold's name followed by the child's (plain concatenation, as Python does). */
  name: string;
  type: 'pipe' | 'manifold';
  pipe: ActivePipe;
  /** What `pipe()` gets as `modelId`: the pipe id, or the child id. */
  modelId: string;
}

/** The loaded pipes (files whose default export came from `definePipe`). */
export function loadedPipes(registry: ModuleRegistry): ActivePipe[] {
  return registry.list().filter((module): module is ActivePipe => module.kind === 'pipe');
}

/** The loaded filters (everything but pipes). */
export function loadedFilters(registry: ModuleRegistry): ActiveFilter[] {
  return registry.list().filter((module): module is ActiveFilter => module.kind === 'filter');
}

/** Every model the pipes offer, in registry order; manifold children from the cache. */
export async function listPipeModels(registry: ModuleRegistry, manifolds: ManifoldModels): Promise<PipeModel[]> {
  const lists = await Promise.all(
    loadedPipes(registry).map(async (pipe): Promise<PipeModel[]> => {
      const children = await manifolds.get(pipe);
      if (!('models' in pipe.definition) || pipe.definition.models === undefined)
        return [{ id: pipe.id, name: pipe.name, type: 'pipe', pipe, modelId: pipe.id }];
      return children.map((child) => ({
        id: `${pipe.id}.${child.id}`,
        name: `${pipe.name}${child.name ?? child.id}`,
        type: 'manifold',
        pipe,
        modelId: child.id,
      }));
    }),
  );
  return lists.flat();
}

/**
 * The pipe model a request names: a plain pipe by its id, a manifold child by
 * `<manifold id>.<child id>` (the child must be in the manifold's list). Undefined otherwise.
 */
export async function resolvePipeModel(
  registry: ModuleRegistry,
  manifolds: ManifoldModels,
  model: string,
): Promise<PipeModel | undefined> {
  for (const pipe of loadedPipes(registry)) {
    const manifold = 'models' in pipe.definition && pipe.definition.models !== undefined;
    if (!manifold && pipe.id === model) return { id: pipe.id, name: pipe.name, type: 'pipe', pipe, modelId: pipe.id };
    if (!manifold || !model.startsWith(`${pipe.id}.`)) continue;
    const childId = model.slice(pipe.id.length + 1);
    const child = (await manifolds.get(pipe)).find((entry) => entry.id === childId);
    if (child)
      return { id: model, name: `${pipe.name}${child.name ?? child.id}`, type: 'manifold', pipe, modelId: childId };
  }
  return undefined;
}

/** The pipe whose model a hook URL names (`<pipe id>` or `<manifold id>.<child id>`), as Python cuts at the dot. */
export function pipeOwning(registry: ModuleRegistry, id: string): ActivePipe | undefined {
  return loadedPipes(registry).find((pipe) => pipe.id === id || id.startsWith(`${pipe.id}.`));
}
