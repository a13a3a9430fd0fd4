import { Router, type Request } from 'express';
import { z } from 'zod';
import { ValidationError } from '../../../core/errors/index.js';
import { HookEvents } from '../../../runtime/host/hook-events.js';
import type { PipelineUser } from '../../../runtime/host/types.js';
import { isForbiddenKey } from '../../../runtime/host/valve-keys.js';
import { renderFunction } from './render-function.js';
import { runFunctionChain, type FilterChainDeps } from '../../../runtime/pipes/filter-chain.js';
import { loadedFilters } from '../../../runtime/pipes/pipe-catalog.js';
import { VERSION } from '../../../core/version.js';
import { checkedBody } from '../../../runtime/http/checked-body.js';
import { clientSignal } from '../../../runtime/http/client-signal.js';
import { HOOKS } from '../../../core/messages/hooks.js';
import { parsedOr400 } from '../../../runtime/http/parsed.js';

/** Where the generated Function and its chain live (GET is allowed with the read-only dashboard key). */
export const FUNCTION_PATH = '/integrations/open-webui/function.py';

const valuesObject = z.record(z.string(), z.unknown());
const envelope = z.strictObject({
  body: valuesObject,
  user: valuesObject.nullish(),
  /** The user's values set in Open WebUI, by Eunoe filter id. */
  user_valves: z.record(z.string(), valuesObject).optional(),
  /** Eunoe filter ids to run (of those targeting the model); every one when absent. */
  filters: z.array(z.string()).optional(),
});

const functionQuery = z.strictObject({
  url: z
    .string()
    .regex(/^https?:\/\/[^\s"'\\]+$/, 'must be an http(s) URL')
    .optional(),
  toggle: z.enum(['true', 'false', '1', '0']).optional(),
});

/** The user, without Pipelines' inline valves (request-time values come in `user_valves`). */
function chainUser(user: Record<string, unknown> | null | undefined): PipelineUser | null {
  if (!user) return null;
  const { valves: _valves, ...rest } = user;
  return rest as PipelineUser;
}

/** Eunoe's address as the caller reached it (the Function's default `eunoe_url`). */
function callerUrl(request: Request): string {
  const host = request.get('host') ?? 'localhost:9099';
  return `${request.protocol}://${host}`;
}

/**
 * Eunoe inside Open WebUI: `GET /integrations/open-webui/function.py` renders the Filter Function an
 * admin imports into Open WebUI; `POST /integrations/open-webui/inlet|outlet` is what it calls on
 * every chat: `{body, user, user_valves?, filters?}` in, `{body, events}` out (events are Open WebUI
 * status lines). Auth, body limits and errors as on the filter routes; refusals carry their `code`.
 */
export function openWebuiRouter(deps: FilterChainDeps): Router {
  const router = Router();
  router.get(FUNCTION_PATH, (request, response) => {
    const query = parsedOr400(functionQuery, request.query, { prefix: 'Invalid query' });
    const filters = loadedFilters(deps.registry).map((filter) => ({
      id: filter.id,
      name: filter.name,
      userValvesSpec: filter.userValvesSpec as never,
    }));
    const text = renderFunction(filters, {
      url: query.url ?? callerUrl(request),
      version: VERSION,
      toggle: query.toggle === 'true' || query.toggle === '1',
    });
    response.type('text/x-python; charset=utf-8').send(text);
  });
  for (const hook of HOOKS) {
    router.post(`/integrations/open-webui/${hook}`, async (request, response) => {
      // Errors answer `{detail, code}` (see error-handler.ts): the Function tells a filter's refusal from a failure.
      response.locals.errorCode = true;
      const parsed = parsedOr400(
        envelope,
        request.body,
        'Request must be a JSON object {"body": {...}, "user": {...}, "user_valves"?: {...}, "filters"?: [...]}',
      );
      const { user_valves: userValves = {}, filters } = parsed;
      const known = new Set(loadedFilters(deps.registry).map((filter) => filter.id));
      const unknown = (filters ?? []).filter((id) => !known.has(id) && !deps.registry.failure(id));
      if (unknown.length > 0) {
        throw new ValidationError(`Unknown filter(s) in the Function's "filters" valve: ${unknown.join(', ')}`, [
          { path: 'filters', message: `not loaded in Eunoe: ${unknown.join(', ')}` },
        ]);
      }
      for (const id of Object.keys(userValves)) {
        if (isForbiddenKey(id)) throw new ValidationError(`user_valves: "${id}" is not a filter id`);
      }
      const body = checkedBody(parsed.body);
      const user = chainUser(parsed.user);
      const events = new HookEvents();
      const call = {
        user,
        logger: request.log,
        signal: clientSignal(response),
        requestId: request.id,
        emit: events.emit,
      };
      const result = await runFunctionChain(deps, hook, body, call, {
        only: filters ? new Set(filters) : undefined,
        userValves,
      });
      response.json({ body: result, events: events.list });
    });
  }
  return router;
}
