import { Router } from 'express';
import { z } from 'zod';
import { NotFoundError } from '../../../core/errors/index.js';
import type { RunStore } from './run-store.js';
import { RUN_ID } from './run-store.js';
import { knownQuery } from '../../../runtime/http/known-query.js';
import { parsedOr400 } from '../../../runtime/http/parsed.js';

/** Runs per page unless `limit` says otherwise, and the most one page holds. */
export const RUNS_PAGE = 50;
export const RUNS_PAGE_MAX = 500;

const text = z.string().min(1).max(512);
const listQuery = z.object({
  chat: text.optional(),
  user: text.optional(),
  model: text.optional(),
  limit: z.coerce.number().int().min(1).max(RUNS_PAGE_MAX).default(RUNS_PAGE),
  before: z.string().regex(RUN_ID, 'must be a run id (the previous page’s next)').optional(),
});

/**
 * The run inspector's JSON (read-only; the dashboard key may call both):
 * - `GET /runs?chat=&user=&model=&limit=&before=`: run heads, newest first (`next`: the `before` of the next page);
 * - `GET /runs/:id`: one run with its messages (404 when unknown or no longer kept).
 */
export function runsRouter(deps: { runs: RunStore }): Router {
  const router = Router();
  router.get('/runs', knownQuery('chat', 'user', 'model', 'limit', 'before'), async (request, response) => {
    response.json(await deps.runs.list(parsedOr400(listQuery, request.query, { prefix: 'Invalid query' })));
  });
  router.get('/runs/:id', knownQuery(), async (request, response) => {
    const id = String(request.params.id);
    const run = await deps.runs.get(id);
    if (!run) throw new NotFoundError(`No run ${JSON.stringify(id.slice(0, 64))} is kept (unknown, or past retention)`);
    response.json(run);
  });
  return router;
}
