import { randomUUID } from 'node:crypto';

/** A JSON object as sent on the wire. */
export type WireObject = Record<string, unknown>;

const now = () => Math.floor(Date.now() / 1000);

/**
 * One `chat.completion.chunk` carrying `delta`, in the Python server's shape (a fresh
 * `<model>-<uuid>` id per chunk, `model` = the full requested id).
 */
export function chunk(model: string, delta: WireObject, finishReason: string | null = null): WireObject {
  return {
    id: `${model}-${randomUUID()}`,
    object: 'chat.completion.chunk',
    created: now(),
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** A content chunk: `delta: {content}`. */
export const contentChunk = (model: string, text: string): WireObject => chunk(model, { content: text });

/** The finish chunk: empty delta, `finish_reason` (`stop` unless told). */
export const finishChunk = (model: string, reason = 'stop'): WireObject => chunk(model, {}, reason);

/** A whole `chat.completion` answer with one assistant message. */
export function completion(
  model: string,
  message: WireObject,
  finishReason: string | null,
  usage?: WireObject,
): WireObject {
  return {
    id: `${model}-${randomUUID()}`,
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
export function errorChunk(model: string, status: number, message: string): WireObject {
  return {
    id: `${model}-${randomUUID()}`,
    object: 'chat.completion.chunk',
    created: now(),
    model,
    choices: [],
    error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: status },
  };
}
