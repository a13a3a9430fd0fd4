import { randomUUID } from 'node:crypto';

/** A JSON object as sent on the wire. */
export type WireObject = Record<string, unknown>;

const now = () => Math.floor(Date.now() / 1000);

/** A new completion id, `<model>-<uuid>`: every chunk of one completion carries the same one, as OpenAI's do. */
export const completionId = (model: string): string => `${model}-${randomUUID()}`;

/**
 * One `chat.completion.chunk` carrying `delta`, in the Python server's shape (`model` = the full requested id);
 * `id` is the completion's (a new one when not given).
 */
export function chunk(
  model: string,
  delta: WireObject,
  finishReason: string | null = null,
  id = completionId(model),
): WireObject {
  return {
    id,
    object: 'chat.completion.chunk',
    created: now(),
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** A content chunk: `delta: {content}`. */
export const contentChunk = (model: string, text: string, id?: string): WireObject =>
  chunk(model, { content: text }, null, id);

/** The finish chunk: empty delta, `finish_reason` (`stop` unless told). */
export const finishChunk = (model: string, reason = 'stop', id?: string): WireObject => chunk(model, {}, reason, id);

/** A whole `chat.completion` answer with one assistant message. */
export function completion(
  model: string,
  message: WireObject,
  finishReason: string | null,
  usage?: WireObject,
  id = completionId(model),
): WireObject {
  return {
    id,
    object: 'chat.completion',
    created: now(),
    model,
    choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  };
}

/**
 * The SSE error event sent when a pipe fails after the first byte: no choices and an `error`
 * object, which Open WebUI shows as an error and OpenAI clients raise.
 */
export function errorChunk(model: string, status: number, message: string, id = completionId(model)): WireObject {
  return {
    id,
    object: 'chat.completion.chunk',
    created: now(),
    model,
    choices: [],
    error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: status },
  };
}
