import type { WireObject } from '../pipes/completion-chunks.js';

/** The whole events found in one network piece of an upstream SSE stream. */
export interface ScannedPiece {
  /** The bytes of the whole events, up to (not including) `[DONE]` or a stopping error event. */
  bytes: Uint8Array | string;
  /** Each JSON `data` object, in order (non-JSON data is skipped). */
  events: WireObject[];
  /** An event carried a `finish_reason`. */
  finished: boolean;
  /** `data: [DONE]` was reached (nothing after it is returned). */
  done: boolean;
  /** A provider error event (`{error}` and no choices) was reached: it is not in `bytes`. */
  error?: WireObject;
}

const isRecord = (value: unknown): value is WireObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const NEWLINE = 10;

/** The end of the last blank line (`\n\n` or `\n\r\n`) in `bytes`, or 0 when there is none yet. */
function lastBoundary(bytes: Uint8Array): number {
  for (let index = bytes.length - 1; index > 0; index -= 1) {
    if (bytes[index] !== NEWLINE) continue;
    if (bytes[index - 1] === NEWLINE) return index + 1;
    if (bytes[index - 1] === 13 && index > 1 && bytes[index - 2] === NEWLINE) return index + 1;
  }
  return 0;
}

function finishReasonOf(json: WireObject): boolean {
  const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
  return isRecord(choice) && typeof choice.finish_reason === 'string';
}

/**
 * Splits an upstream's SSE byte stream into whole events, piece by piece, without copying what it
 * forwards: a piece's whole events are returned as the same bytes (a partial event at its end
 * waits for the next piece). Each `data` field is parsed once (multi-line data joined with `\n`,
 * as the SSE spec says); comments (`: OPENROUTER PROCESSING`), `event:` and `id:` lines pass
 * through in the bytes.
 */
export class SseScanner {
  private pending?: Uint8Array;
  private readonly decoder = new TextDecoder();

  /** Scan one network piece. */
  push(piece: Uint8Array): ScannedPiece {
    const bytes = this.pending ? concat(this.pending, piece) : piece;
    const end = lastBoundary(bytes);
    this.pending = end < bytes.length ? bytes.slice(end) : undefined;
    return this.scan(end === bytes.length ? bytes : bytes.subarray(0, end));
  }

  /** What is left when the stream ends: a last event without its blank line. */
  end(): ScannedPiece {
    const rest = this.pending;
    this.pending = undefined;
    if (!rest?.length) return { bytes: '', events: [], finished: false, done: false };
    return this.scan(concat(rest, new TextEncoder().encode('\n\n')));
  }

  private scan(bytes: Uint8Array): ScannedPiece {
    const result: ScannedPiece = { bytes, events: [], finished: false, done: false };
    if (!bytes.length) return result;
    const text = this.decoder.decode(bytes);
    let data: string[] = [];
    let eventStart = 0;
    let start = 0;
    while (start < text.length) {
      let newline = text.indexOf('\n', start);
      if (newline === -1) newline = text.length;
      const lineEnd = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      if (lineEnd === start) {
        if (data.length) {
          const payload = data.length === 1 ? data[0]! : data.join('\n');
          data = [];
          if (payload === '[DONE]') return this.cut(result, text, eventStart, { done: true });
          const json = parse(payload);
          if (json) {
            if (isRecord(json.error) && !(Array.isArray(json.choices) && json.choices.length))
              return this.cut(result, text, eventStart, { error: json.error });
            result.events.push(json);
            if (!result.finished && finishReasonOf(json)) result.finished = true;
          }
        }
        eventStart = newline + 1;
      } else if (text.startsWith('data:', start)) {
        data.push(text.slice(start + (text.charCodeAt(start + 5) === 32 ? 6 : 5), lineEnd));
      }
      start = newline + 1;
    }
    return result;
  }

  /** Stop at the event starting at `eventStart`: only what came before it is forwarded. */
  private cut(result: ScannedPiece, text: string, eventStart: number, stop: Partial<ScannedPiece>): ScannedPiece {
    this.pending = undefined;
    return { ...result, ...stop, bytes: text.slice(0, eventStart) };
  }
}

function parse(payload: string): WireObject | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}
