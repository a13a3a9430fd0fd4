import type { Response } from 'express';
import type { Logger } from '../../core/util/logger.js';
import { completionId, errorChunk, type WireObject } from './completion-chunks.js';
import { isStreamResult, pipeEvents, type PipeEvent } from './pipe-events.js';
import { asPipeError } from './pipe-errors.js';
import { ReplyAssembler } from './reply-assembler.js';
import { SseWriter } from './sse-writer.js';
import type { PipeResult } from './types.js';

/** What happens around the reply: extra events before `[DONE]` (outlet additions) and the end. */
export interface ReplyHooks {
  /** Called with the whole reply before `[DONE]` (stream) or before the JSON (non-stream); may return a text to append. */
  beforeEnd?(reply: ReplyAssembler): Promise<string | undefined>;
}

const isRecord = (value: unknown): value is WireObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `stream: false`: the pipe's answer as one `chat.completion` (an object it returned is sent as
 * is; text and streams are assembled). Errors propagate (a JSON error with their status).
 */
export async function sendJsonReply(options: {
  response: Response;
  result: PipeResult | undefined;
  model: string;
  pipeId: string;
  hooks?: ReplyHooks;
}): Promise<ReplyAssembler> {
  const { result, model } = options;
  const reply = new ReplyAssembler();
  if (isRecord(result) && !isStreamResult(result)) {
    reply.observe(result);
    const addition = await options.hooks?.beforeEnd?.(reply);
    options.response.json(addition ? appendToCompletion(result, addition) : result);
    return reply;
  }
  try {
    for await (const event of pipeEvents(result, model, completionId(model))) {
      if (event.frames) for (const json of event.frames.events) reply.observe(json);
      else reply.observe(event.json);
    }
  } catch (error) {
    throw asPipeError(options.pipeId, error);
  }
  const addition = await options.hooks?.beforeEnd?.(reply);
  if (addition) reply.content += addition;
  options.response.json(reply.completion(model));
  return reply;
}

/** A completion object with `text` appended to its first choice's content. */
function appendToCompletion(result: WireObject, text: string): WireObject {
  const choices = Array.isArray(result.choices) ? [...result.choices] : [];
  const first = isRecord(choices[0]) ? choices[0] : undefined;
  if (!first || !isRecord(first.message)) return result;
  const content = typeof first.message.content === 'string' ? first.message.content : '';
  choices[0] = { ...first, message: { ...first.message, content: content + text } };
  return { ...result, choices };
}

/**
 * `stream: true`: the first event is read before anything is sent, so a pipe that fails at
 * once is a JSON error with its status; after that, each event is written as it comes, and a
 * failure is an SSE error event, then the end. A client that goes away stops the reading
 * (the pipe's signal is aborted by the caller).
 */
export async function sendStreamReply(options: {
  response: Response;
  result: PipeResult | undefined;
  model: string;
  pipeId: string;
  logger: Logger;
  hooks?: ReplyHooks;
  /** Objects sent before the reply's first chunk (Open WebUI `{"event": …}` chunks). */
  prelude?: readonly WireObject[];
}): Promise<ReplyAssembler> {
  const { response, model } = options;
  const reply = new ReplyAssembler();
  // One id for every chunk this completion is given (the pipe's own chunks, an upstream's, keep theirs).
  const id = completionId(model);
  const events = pipeEvents(options.result, model, id)[Symbol.asyncIterator]();
  let next: IteratorResult<PipeEvent>;
  try {
    next = await events.next();
  } catch (error) {
    throw asPipeError(options.pipeId, error);
  }
  const writer = new SseWriter(response);
  writer.start();
  try {
    for (const object of options.prelude ?? []) if (!(await writer.send(JSON.stringify(object)))) break;
    while (!next.done) {
      const event = next.value;
      if (event.data === '[DONE]') {
        const addition = await options.hooks?.beforeEnd?.(reply);
        if (addition && !(await writer.send(JSON.stringify(additionChunk(reply, model, addition, id))))) break;
        // The client has the whole answer now; what the pipe does after (its accounting) does not delay it.
        writer.finish(event.data);
        await afterEnd(events, options);
        break;
      }
      if (event.frames) {
        // The whole reply is only needed by outlet hooks: relayed frames are otherwise sent unread.
        if (options.hooks) for (const json of event.frames.events) reply.observe(json);
        if (!(await writer.sendFrames(event.frames.bytes))) break;
      } else {
        if (options.hooks) reply.observe(event.json);
        if (!(await writer.send(event.data))) break;
      }
      next = await events.next();
    }
  } catch (error) {
    const failure = asPipeError(options.pipeId, error);
    if (writer.open) {
      options.logger.warn({ err: failure.message, status: failure.status }, 'pipe failed after the first byte');
      await writer.send(JSON.stringify(errorChunk(model, failure.status, failure.message, reply.id ?? id)));
    } else {
      options.logger.warn(
        { err: failure.message, status: failure.status },
        'pipe failed after the client went away (nothing more is sent)',
      );
    }
  } finally {
    if (!writer.open) await events.return?.(undefined).catch(() => undefined);
    writer.end();
  }
  return reply;
}

/**
 * What the pipe does once the answer ended (after `[DONE]`: its cleanup, its accounting). A failure
 * there is logged as such; nothing is written, the answer is already complete.
 */
async function afterEnd(events: AsyncIterator<PipeEvent>, options: { pipeId: string; logger: Logger }): Promise<void> {
  try {
    await events.next();
  } catch (error) {
    const failure = asPipeError(options.pipeId, error);
    options.logger.warn(
      { err: failure.message, status: failure.status },
      'pipe failed after its answer ended (the client has the whole answer)',
    );
  }
}

/** A content chunk carrying an outlet's addition (e.g. the usage line), sent just before `[DONE]`. */
function additionChunk(reply: ReplyAssembler, model: string, text: string, id: string): WireObject {
  reply.content += text;
  return {
    id: reply.id ?? id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }],
  };
}
