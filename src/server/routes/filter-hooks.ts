import { Router } from 'express';
import { z } from 'zod';
import { FilterNotLoadedError, NotFoundError } from '../../core/errors/index.js';
import { HOOKS } from '../../core/messages/hooks.js';
import type { ActiveModule, ModuleRegistry } from '../../runtime/host/module-registry.js';
import { callHook, hookLogFields, type HookCallDeps } from '../../runtime/host/hook-call.js';
import type { PipelineUser } from '../../runtime/host/types.js';
import { pipeOwning } from '../../runtime/pipes/pipe-catalog.js';
import { checkedBody } from '../../runtime/http/checked-body.js';
import { clientSignal } from '../../runtime/http/client-signal.js';
import { parsedOr400 } from '../../runtime/http/parsed.js';

const envelope = z.object({
  body: z.record(z.string(), z.unknown()),
  user: z.record(z.string(), z.unknown()).nullish(),
});

export interface FilterHooksDeps extends HookCallDeps {
  registry: ModuleRegistry;
}

/** The filter `id` names, or the pipe answering for it; else a 404 (a 503-class error when its file failed to load). */
async function moduleFor(deps: FilterHooksDeps, id: string): Promise<ActiveModule> {
  // Open WebUI calls a pipe model's own inlet/outlet too (`/openai-proxy.gpt-4o/filter/inlet`): the pipe answers.
  const module = (await deps.registry.acquire(id, deps.hookTimeoutMs)) ?? pipeOwning(deps.registry, id);
  if (module) return module;
  const failure = deps.registry.failure(id);
  if (failure) throw new FilterNotLoadedError(id, failure.error);
  throw new NotFoundError(`Filter ${id} not found`);
}

/**
 * `POST /{id}/filter/inlet` and `/outlet`: `{body, user}` in, the (possibly changed) body out. The hook runs through
 * `callHook` (runtime/host/hook-call.ts); the Pipelines protocol has no channel for its events, so they are logged and,
 * when the chat's model is one of Eunoe's pipes, held for that pipe's stream (`heldEvents`).
 * A filter whose `pipelines` valve does not target `body.model` passes the body through.
 */
export function filterHooksRouter(deps: FilterHooksDeps): Router {
  const router = Router();
  // One route per hook, so the route table names both and nothing else (`/{id}/filter/stream` is a 404).
  for (const hook of HOOKS) {
    router.post(`/:id/filter/${hook}`, async (request, response) => {
      const id = request.params.id;
      const module = await moduleFor(deps, id);
      const parsed = parsedOr400(
        envelope,
        request.body,
        'Request must be a JSON object {"body": {...}, "user": {...}}',
      );
      const user: PipelineUser | null = parsed.user ?? null;
      response.locals.access = hookLogFields(id, user, parsed.body);
      const body = checkedBody(parsed.body);
      const call = { user, logger: request.log, signal: clientSignal(response), requestId: request.id };
      response.json(await callHook(deps, module, hook, body, call));
    });
  }
  return router;
}
