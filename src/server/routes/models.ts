import { Router } from 'express';
import type { ModuleRegistry } from '../../runtime/host/module-registry.js';
import type { ManifoldModels } from '../../runtime/pipes/manifold-models.js';
import { listPipeModels, loadedFilters } from '../../runtime/pipes/pipe-catalog.js';
import { moduleTypeOf } from '../../runtime/host/declared-kind.js';

/**
 * `GET /models` (Open WebUI discovery: the top-level `pipelines: true` marks a Pipelines
 * server; each filter carries `pipeline.pipelines` and `pipeline.priority`; pipes and manifold
 * children are chat models with `pipeline.type` `pipe` / `manifold`) and
 * `GET /pipelines` (admin list; failed files are listed too, with their error and declared type; a loaded filter
 * whose file changed and no longer loads carries `load_error` while its last good version serves).
 */
export function modelsRouter({
  registry,
  manifolds,
  listFilters = true,
}: {
  registry: ModuleRegistry;
  manifolds: ManifoldModels;
  /** False (PIPELINES_FILTERS=off): no filter in `/models`, so Open WebUI's Pipelines connection calls none. */
  listFilters?: boolean;
}): Router {
  const router = Router();
  router.get('/models', async (_request, response) => {
    const created = Math.floor(Date.now() / 1000);
    const filters = (listFilters ? loadedFilters(registry) : []).map((filter) => ({
      id: filter.id,
      name: filter.name,
      object: 'model',
      created,
      owned_by: 'openai',
      pipeline: { type: 'filter', valves: true, pipelines: filter.valves.pipelines, priority: filter.valves.priority },
    }));
    const pipes = (await listPipeModels(registry, manifolds)).map((model) => ({
      id: model.id,
      name: model.name,
      object: 'model',
      created,
      owned_by: 'openai',
      pipeline: { type: model.type, valves: Object.keys(model.pipe.valvesSchema.shape).length > 0 },
    }));
    response.json({ data: [...pipes, ...filters], object: 'list', pipelines: true });
  });
  router.get('/pipelines', (_request, response) => {
    const loaded = registry.list().map((filter) => {
      const pipe = filter.kind === 'pipe';
      const type = moduleTypeOf(filter);
      // The file changed and no longer loads: this (last good) version keeps serving until it does.
      const loadError = registry.loadError(filter.id);
      return {
        id: filter.id,
        name: filter.name,
        type,
        valves: true,
        user_valves: Boolean(filter.userValvesSchema),
        ...(pipe ? {} : { priority: filter.valves.priority, pipelines: filter.valves.pipelines }),
        file: filter.file.split('/').pop(),
        status: 'loaded',
        isolation: filter.isolation ?? 'main',
        origin: registry.origin(filter.file),
        path: filter.file,
        ...(loadError ? { load_error: { error: loadError.error, line: loadError.line ?? null } } : {}),
      };
    });
    const failed = registry.failures().map((failure) => ({
      id: failure.id,
      name: failure.id,
      // What the file declares (`unknown` when it is too broken to tell), so a broken pipe is not listed as a filter.
      type: failure.kind,
      valves: false,
      file: failure.file,
      status: 'failed',
      error: failure.error,
      line: failure.line ?? null,
      origin: failure.origin ?? 'user',
    }));
    response.json({ data: [...loaded, ...failed] });
  });
  return router;
}
