import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../core/errors/index.js';
import {
  hasFilterChain,
  runInletChain,
  runOutletChain,
  type FilterChainDeps,
} from '../../runtime/pipes/filter-chain.js';
import { runsFilters, type PipeFiltersMode } from '../../runtime/pipes/runs-filters.js';
import type { ReplyHooks } from '../../runtime/pipes/send-reply.js';
import { firstInvalidMessage } from '../../core/messages/chat-message-schema.js';
import type { ChatMessage } from '../../core/messages/chat-message.js';
import type { ManifoldModels } from '../../runtime/pipes/manifold-models.js';
import { resolvePipeModel } from '../../runtime/pipes/pipe-catalog.js';
import { pipeUser } from '../../runtime/pipes/pipe-user.js';
import { invokePipe } from '../../runtime/pipes/invoke-pipe.js';
import { sendJsonReply, sendStreamReply } from '../../runtime/pipes/send-reply.js';
import { userValvesFor } from '../../runtime/host/user-valves.js';
import { HookEvents } from '../../runtime/host/hook-events.js';
import { clientSignal } from '../../runtime/http/client-signal.js';
import type { FilterEvent, PipelineUser } from '../../runtime/host/types.js';
import type { Logger } from '../../core/util/logger.js';
import { wantsEvents, type PipeStatusMailbox } from '../../runtime/pipes/pipe-status.js';
import { parsedOr400 } from '../../runtime/http/parsed.js';

const completionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.unknown()),
  stream: z.boolean().nullish(),
});

export interface ChatCompletionsDeps extends FilterChainDeps {
  manifolds: ManifoldModels;
  pipeFilters?: PipeFiltersMode;
  /** Events of Open WebUI's inlet calls for this turn (pipe-status.ts). */
  mailbox?: PipeStatusMailbox;
}

/** The request body checked: `model`, `messages` (lenient: `content: null` is fine), optional `stream`. */
function checkedRequest(body: unknown) {
  const request = parsedOr400(
    completionRequest,
    body,
    'Request must be a JSON object with "model" (string) and "messages" (array)',
  );
  const invalid = firstInvalidMessage(request.messages);
  if (invalid) {
    throw new ValidationError(
      `messages[${invalid.index}] is not a chat message: ${invalid.reason}`,
      invalid.issues.map((issue) => ({
        path: ['messages', invalid.index, ...issue.path].join('.'),
        message: issue.message,
      })),
    );
  }
  return { ...request, messages: request.messages as ChatMessage[] };
}

/** The stream's leading `{"event": …}` chunks: what Open WebUI's inlet calls left for this turn, then the chain's own. */
async function statusPrelude(
  mailbox: PipeStatusMailbox | undefined,
  user: PipelineUser | null,
  messages: ChatMessage[],
  events: HookEvents,
  logger: Logger,
): Promise<Array<{ event: FilterEvent }>> {
  const held = await (mailbox?.take(user, messages) ?? Promise.resolve([])).catch((error: unknown) => {
    logger.debug({ err: String(error) }, 'inlet events for the pipe stream could not be read');
    return [];
  });
  return [...held, ...events.list].map((event) => ({ event }));
}

/**
 * `POST /chat/completions` (and `/v1/…`): runs the pipe the model names. `stream` defaults to
 * true (SSE `chat.completion.chunk`s, a finish chunk, `data: [DONE]`); `stream: false` answers one
 * `chat.completion`. The pipe's signal is aborted when the client disconnects.
 */
export function chatCompletionsRouter(deps: ChatCompletionsDeps): Router {
  const router = Router();
  const handle = async (request: Request, response: Response) => {
    const body = checkedRequest(request.body);
    const target = await resolvePipeModel(deps.registry, deps.manifolds, body.model);
    if (!target) throw new NotFoundError(`Pipeline ${body.model} not found`);
    const stream = body.stream !== false;
    const signal = clientSignal(response);
    const user = pipeUser(body, request.headers);
    const logger = request.log.child({ pipe: target.pipe.id, model: target.id });
    // Status lines (the context decision) go to Open WebUI as `{"event": …}` chunks before the reply; never to OpenAI clients.
    const events = stream && wantsEvents(body, request.headers) ? new HookEvents() : undefined;
    const call = { user, logger, signal, requestId: request.id, emit: events?.emit };
    // Direct callers get the filters Open WebUI would run (inlet → pipe → outlet); Open WebUI's own calls do not.
    // The pipe's own inlet/outlet (a Python-style pipe may define them) run there too: inlet last, outlet first.
    const chained =
      runsFilters(deps.pipeFilters ?? 'auto', body, request.headers) &&
      hasFilterChain(deps.registry, body.model, target.pipe);
    const pipeBody = chained ? await runInletChain(deps, body, call, target.pipe) : body;
    const messages = Array.isArray(pipeBody.messages) ? (pipeBody.messages as ChatMessage[]) : body.messages;
    const hooks: ReplyHooks | undefined = chained
      ? { beforeEnd: (assembled) => runOutletChain(deps, body, assembled, call, target.pipe) }
      : undefined;
    const result = await invokePipe({
      target,
      body: { ...pipeBody, messages },
      stream,
      user,
      userValves: await userValvesFor(target.pipe, user, deps.valves, logger),
      logger,
      signal,
      services: deps.services,
      requestId: request.id,
    });
    const prelude = events ? await statusPrelude(deps.mailbox, user, body.messages, events, logger) : undefined;
    const reply = { response, result, model: target.id, pipeId: target.pipe.id, logger, hooks, prelude };
    if (stream) await sendStreamReply(reply);
    else await sendJsonReply(reply);
  };
  router.post('/chat/completions', async (request, response) => {
    try {
      await handle(request, response);
    } catch (error) {
      // An upstream's 429/503 tells when to retry: the client gets it too (the error handler writes the rest).
      const retryAfter = (error as { retryAfter?: unknown })?.retryAfter;
      if (!response.headersSent && typeof retryAfter === 'string') response.setHeader('Retry-After', retryAfter);
      throw error;
    }
  });
  return router;
}
