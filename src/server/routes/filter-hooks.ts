import { Router } from 'express';
import { z } from 'zod';
import { FilterNotLoadedError, NotFoundError, ValidationError } from '../../core/errors/index.js';
import type { FilterRegistry } from '../../runtime/host/filter-registry.js';
import type { ValvesRepository } from '../../runtime/host/valves-repository.js';
import { targets, userValvesFor } from '../../runtime/host/user-valves.js';
import { noFlags, type FlagsHost } from '../../runtime/host/flags-host.js';
import { runHook } from '../../runtime/host/run-hook.js';
import { HookEvents } from '../../runtime/host/hook-events.js';
import type { AccessFields } from '../middleware/request-context.js';
import type { Metrics } from '../../runtime/metrics/metrics.js';
import { observeHook } from '../../runtime/metrics/observe-hook.js';
import type { FilterBody, HostServices, PipelineUser } from '../../runtime/host/types.js';
import type { ChatMessage } from '../../core/messages/chat-message.js';
import { firstInvalidMessage } from '../../core/messages/chat-message-schema.js';
import { pipeOwning } from '../../runtime/pipes/pipe-catalog.js';
import { isPipeModel, type PipeStatusMailbox } from '../../runtime/pipes/pipe-status.js';
import { HOOKS } from '../../core/messages/hooks.js';

const envelope = z.object({
  body: z.record(z.string(), z.unknown()),
  user: z.record(z.string(), z.unknown()).nullish(),
});

/** Throws a 400 naming the first entry of `messages` that is not a chat message (`chatMessageSchema`). */
function assertChatMessages(messages: unknown[]): asserts messages is ChatMessage[] {
  const invalid = firstInvalidMessage(messages);
  if (!invalid) return;
  throw new ValidationError(
    `body.messages[${invalid.index}] is not a chat message: ${invalid.reason}`,
    invalid.issues.map((issue) => ({
      path: ['body', 'messages', invalid.index, ...issue.path].join('.'),
      message: issue.message,
    })),
  );
}

/** The envelope's body as a `FilterBody`: `messages`, when present, must be an array of chat messages. Never rewritten. */
export function checkedBody(body: Record<string, unknown>): FilterBody {
  const { messages } = body;
  if (messages === undefined) return body;
  if (!Array.isArray(messages)) {
    throw new ValidationError('body.messages must be an array of chat messages', [
      { path: 'body.messages', message: 'expected an array' },
    ]);
  }
  assertChatMessages(messages);
  return { ...body, messages };
}

/** The filter, user and chat ids of a hook call, for its access line and its filter's log lines. */
function accessFields(filter: string, user: PipelineUser | null, body: Record<string, unknown>): AccessFields {
  const metadata = body.metadata as Record<string, unknown> | undefined;
  const chat = (metadata && typeof metadata === 'object' ? metadata.chat_id : undefined) ?? body.chat_id;
  const userId = user?.id;
  return {
    filter,
    ...(typeof userId === 'string' || typeof userId === 'number' ? { user: String(userId) } : {}),
    ...(typeof chat === 'string' && chat !== '' ? { chat } : {}),
  };
}

export interface FilterHooksDeps {
  registry: FilterRegistry;
  valves: ValvesRepository;
  services: HostServices;
  flags?: FlagsHost;
  hookTimeoutMs: number;
  metrics?: Metrics;
  /** Keeps inlet events for the stream of an Eunoe pipe model (pipe-status.ts). */
  mailbox?: PipeStatusMailbox;
}

/**
 * `POST /{id}/filter/inlet` and `/outlet`: `{body, user}` in, the (possibly changed) body out.
 * A filter whose `pipelines` valve does not target `body.model` passes the body through.
 */
export function filterHooksRouter(deps: FilterHooksDeps): Router {
  const router = Router();
  // One route per hook, so the route table names both and nothing else (`/{id}/filter/stream` is a 404).
  for (const hook of HOOKS) {
    router.post(`/:id/filter/${hook}`, async (request, response) => {
      const id = request.params.id;
      // Open WebUI calls a pipe model's own inlet/outlet too (`/openai-proxy.gpt-4o/filter/inlet`): the pipe answers.
      const filter = (await deps.registry.acquire(id, deps.hookTimeoutMs)) ?? pipeOwning(deps.registry, id);
      if (!filter) {
        const failure = deps.registry.failure(id);
        if (failure) throw new FilterNotLoadedError(id, failure.error);
        throw new NotFoundError(`Filter ${id} not found`);
      }
      const parsed = envelope.safeParse(request.body);
      if (!parsed.success) {
        throw new ValidationError(
          'Request must be a JSON object {"body": {...}, "user": {...}}',
          parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
        );
      }
      const user: PipelineUser | null = parsed.data.user ?? null;
      const access = accessFields(id, user, parsed.data.body);
      response.locals.access = access;
      let body = checkedBody(parsed.data.body);
      const isPipe = filter.kind === 'pipe';
      if (isPipe ? !filter.definition[hook] : !targets(filter, body.model)) {
        response.json(body);
        return;
      }
      const userValves = await userValvesFor(filter, user, deps.valves, request.log);
      let flags = noFlags();
      if (deps.flags) {
        const defaults = typeof userValves.default_flags === 'string' ? userValves.default_flags : undefined;
        const resolved = await deps.flags.resolve({ body, user, hook, defaults });
        flags = resolved.flags;
        // Only the inlet strips flag blocks (the model must not see them). The outlet body is
        // what Open WebUI saves: the user's messages must stay as they typed them.
        if (hook === 'inlet') body = resolved.body;
      }
      const events = new HookEvents();
      const abort = new AbortController();
      response.on('close', () => {
        if (!response.writableFinished) abort.abort(new Error('client closed the connection'));
      });
      const result = await observeHook(deps.metrics, filter.id, hook, () =>
        runHook({
          filter,
          hook,
          timeoutMs: deps.hookTimeoutMs,
          parentSignal: abort.signal,
          args: {
            body,
            user,
            valves: filter.valves,
            userValves,
            logger: request.log.child({ ...access, hook }),
            state: filter.state,
            flags,
            services: deps.services,
            filterId: filter.id,
            requestId: request.id,
            hook,
            emit: events.emit,
          },
        }),
      );
      // The Pipelines protocol has no channel for events: they are logged (the Function's chain route returns them),
      // and when the chat's model is one of Eunoe's pipes, that pipe's stream shows them (pipe-status.ts).
      if (events.list.length > 0) {
        request.log.debug({ ...access, hook, events: events.list }, 'filter events');
        if (hook === 'inlet' && deps.mailbox && isPipeModel(deps.registry, body.model)) {
          await deps.mailbox
            .post(user, result, events.list)
            .catch((error: unknown) =>
              request.log.debug({ err: String(error) }, 'filter events not kept for the pipe stream'),
            );
        }
      }
      response.json(result);
    });
  }
  return router;
}
