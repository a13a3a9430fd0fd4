import { completionId, contentChunk, finishChunk, type WireObject } from './completion-chunks.js';
import { SseFrames } from '../../core/messages/sse-frames.js';
import type { PipeChunk, PipeResult } from './types.js';

/**
 * One SSE event to send: `data: <data>\n\n`; `json` is the parsed object when it is one (parsed on
 * first read). With `frames`, already framed events are sent as they are instead (`data` is empty).
 */
export interface PipeEvent {
  data: string;
  frames?: SseFrames;
  readonly json?: WireObject;
  /** Set on raw `data:` lines, whose `json` is parsed lazily. */
  raw?: true;
}

/** An event for a raw `data:` line: its JSON is parsed only if someone reads it (a relayed stream is sent as is). */
function lineEvent(data: string): PipeEvent {
  let parsed: WireObject | undefined | null = null;
  return {
    data,
    raw: true,
    get json() {
      if (parsed === null) {
        try {
          const value: unknown = data === '[DONE]' ? undefined : JSON.parse(data);
          parsed = isRecord(value) ? value : undefined;
        } catch {
          parsed = undefined;
        }
      }
      return parsed;
    },
  };
}

/** Cheap check on a raw line before parsing it: only a chunk with a finish reason matters to `pipeEvents`. */
const FINISH_REASON = /"finish_reason"\s*:\s*"/;

const decoder = new TextDecoder();
const isRecord = (value: unknown): value is WireObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True for what `pipe()` may stream: an async iterable, or a sync iterable other than a string. */
export function isStreamResult(value: unknown): value is AsyncIterable<PipeChunk> | Iterable<PipeChunk> {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return false;
  return Symbol.asyncIterator in value || Symbol.iterator in value;
}

/** The first choice's `finish_reason` of a chunk, when it has one. */
export function finishReasonOf(json: WireObject | undefined): string | undefined {
  const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
  return isRecord(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
}

function objectEvent(json: WireObject): PipeEvent {
  return { data: JSON.stringify(json), json };
}

/**
 * One yielded item as an event, the way the Python server treats it: a `data:` line passes
 * verbatim (a pipe relaying an upstream SSE stream), other text becomes a content chunk,
 * an object is sent as is (a chunk, or an Open WebUI `{event: …}`), bytes are UTF-8 text.
 * Empty text (blank SSE lines) sends nothing. Chunks made here carry the completion's `id`.
 */
export function itemEvent(item: PipeChunk, model: string, id?: string): PipeEvent | undefined {
  if (item instanceof Uint8Array) return itemEvent(decoder.decode(item), model, id);
  if (typeof item === 'string') {
    if (item.startsWith('data:')) {
      const data = item.slice(5).trim();
      return data === '' ? undefined : lineEvent(data);
    }
    return item === '' ? undefined : objectEvent(contentChunk(model, item, id));
  }
  if (isRecord(item)) return objectEvent(item);
  return item == null ? undefined : objectEvent(contentChunk(model, String(item), id));
}

/** A whole `chat.completion` object as chunks: its message as one delta, then its finish reason. */
function completionEvents(result: WireObject, model: string, id: string): PipeEvent[] {
  const choice = Array.isArray(result.choices) && isRecord(result.choices[0]) ? result.choices[0] : {};
  const { role: _role, ...message } = isRecord(choice.message) ? choice.message : {};
  // The completion's own id (an upstream's) when it has one.
  const own = typeof result.id === 'string' ? result.id : id;
  const events = [
    objectEvent({ ...contentChunk(model, '', own), choices: [{ index: 0, delta: message, finish_reason: null }] }),
  ];
  const finish = finishChunk(model, typeof choice.finish_reason === 'string' ? choice.finish_reason : 'stop', own);
  if (isRecord(result.usage)) finish.usage = result.usage;
  events.push(objectEvent(finish));
  return events;
}

/**
 * Every SSE event of a pipe's answer, `[DONE]` last. Text gets a content chunk and the finish
 * chunk; a stream gets the finish chunk (unless it yielded one) and `[DONE]` (unless it passed
 * the upstream's through). Errors thrown by the pipe's iterator propagate to the caller. Every chunk made here
 * carries `id` (one per completion); chunks the pipe yields itself (an upstream's) keep theirs.
 */
export async function* pipeEvents(
  result: PipeResult | null | undefined,
  model: string,
  id = completionId(model),
): AsyncGenerator<PipeEvent> {
  let finished = false;
  if (typeof result === 'string') {
    if (result !== '') yield objectEvent(contentChunk(model, result, id));
  } else if (isStreamResult(result)) {
    for await (const item of result as AsyncIterable<PipeChunk>) {
      if (item instanceof SseFrames) {
        if (item.finished) finished = true;
        yield { data: '', frames: item };
        continue;
      }
      const event = itemEvent(item, model, id);
      if (!event) continue;
      if (event.data === '[DONE]') {
        yield event;
        return;
      }
      if (!finished && (!event.raw || FINISH_REASON.test(event.data)) && finishReasonOf(event.json)) finished = true;
      yield event;
    }
  } else if (isRecord(result)) {
    yield* completionEvents(result, model, id);
    finished = true;
  }
  if (!finished) yield objectEvent(finishChunk(model, 'stop', id));
  yield { data: '[DONE]' };
}
