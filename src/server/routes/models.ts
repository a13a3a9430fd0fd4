import { Router } from 'express';
import type { FilterRegistry } from '../../host/filter-registry.js';

/**
 * `GET /models` (Open WebUI discovery: the top-level `pipelines: true` marks a Pipelines
 * server; each filter carries `pipeline.pipelines` and `pipeline.priority`) and
 * `GET /pipelines` (admin list; failed files are listed too, with their error).
 */
export function modelsRouter({ registry }: { registry: FilterRegistry }): Router {
  const router = Router();
  router.get('/models', (_request, response) => {
    const created = Math.floor(Date.now() / 1000);
    const data = registry.list().map((filter) => ({
      id: filter.id,
      name: filter.name,
      object: 'model',
      created,
      owned_by: 'openai',
      pipeline: { type: 'filter', valves: true, pipelines: filter.valves.pipelines, priority: filter.valves.priority },
    }));
    response.json({ data, object: 'list', pipelines: true });
  });
  router.get('/pipelines', (_request, response) => {
    const loaded = registry.list().map((filter) => ({
      id: filter.id,
      name: filter.name,
      type: 'filter',
      valves: true,
      user_valves: Boolean(filter.userValvesSchema),
      priority: filter.valves.priority,
      pipelines: filter.valves.pipelines,
      file: filter.file.split('/').pop(),
      status: 'loaded',
      isolation: filter.isolation ?? 'main',
      origin: registry.origin(filter.file),
      path: filter.file,
    }));
    const failed = registry.failures().map((failure) => ({
      id: failure.id,
      name: failure.id,
      type: 'filter',
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
