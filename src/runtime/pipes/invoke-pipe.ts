import type { Logger } from '../../core/util/logger.js';
import type { FilterBody, HostServices, PipelineUser } from '../host/types.js';
import type { ChatMessage } from '../../core/messages/chat-message.js';
import { lastUserText } from '../../core/messages/last-user-message.js';
import { asPipeError } from './pipe-errors.js';
import type { PipeModel } from './pipe-catalog.js';
import type { PipeArgs, PipeResult } from './types.js';
import { servicesForUser } from '../host/user-scoped-services.js';

/** Everything but the pipe's own parts (valves, state) that one call needs. */
export interface PipeCall {
  target: PipeModel;
  body: FilterBody & { messages: ChatMessage[] };
  stream: boolean;
  user: PipelineUser | null;
  userValves: Record<string, unknown>;
  logger: Logger;
  signal: AbortSignal;
  services: HostServices;
  requestId: string;
}

/** The argument `pipe()` gets for a call. */
export function pipeArgs(call: PipeCall): PipeArgs<Record<string, unknown>, Record<string, unknown>> {
  const { target, body } = call;
  return {
    body,
    messages: body.messages,
    userMessage: lastUserText(body.messages),
    modelId: target.modelId,
    model: target.id,
    stream: call.stream,
    user: call.user,
    valves: target.pipe.valves,
    userValves: call.userValves,
    logger: call.logger,
    signal: call.signal,
    state: target.pipe.state,
    // The pipe's records are its caller's (the openai-proxy records the user it serves), and only those.
    services: servicesForUser(call.services, call.user),
    pipeId: target.pipe.id,
    requestId: call.requestId,
  };
}

/**
 * Call the pipe and return what it returned (sync or async; a stream is not read here).
 * A throw becomes a typed error: a `FilterError` keeps its status, anything else is a 500.
 */
export async function invokePipe(call: PipeCall): Promise<PipeResult | undefined> {
  const { definition } = call.target.pipe;
  try {
    return await definition.pipe(pipeArgs(call) as never);
  } catch (error) {
    throw asPipeError(call.target.pipe.id, error);
  }
}
