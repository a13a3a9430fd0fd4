import { describe, expect, it } from 'vitest';
import { SseScanner } from '../../src/features/proxy/sse-scanner.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (piece: Uint8Array | string) => (typeof piece === 'string' ? piece : new TextDecoder().decode(piece));
const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

describe('SseScanner: whole events of an upstream SSE byte stream, forwarded as they came', () => {
  it('forwards whole events as the same bytes and keeps a partial event for the next piece', () => {
    const scanner = new SseScanner();
    const stream = `: OPENROUTER PROCESSING\n\n${chunk('Hel')}${chunk('lo')}`;
    const cutAt = stream.length - 10;
    const first = scanner.push(bytes(stream.slice(0, cutAt)));
    expect(text(first.bytes)).toBe(`: OPENROUTER PROCESSING\n\n${chunk('Hel')}`);
    expect(first.events.map((event) => event.choices)).toEqual([
      [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }],
    ]);
    const second = scanner.push(bytes(stream.slice(cutAt)));
    expect(text(second.bytes)).toBe(chunk('lo'));
    expect(second.events).toHaveLength(1);
    expect(second.done).toBe(false);
  });

  it('a multi-byte character split between pieces arrives whole', () => {
    const scanner = new SseScanner();
    const whole = bytes(chunk('héllo ✓'));
    const split = whole.indexOf(0xe2) + 1; // inside the three bytes of ✓
    expect(scanner.push(whole.subarray(0, split)).events).toEqual([]);
    const rest = scanner.push(whole.subarray(split));
    expect((rest.events[0]!.choices as Array<{ delta: { content: string } }>)[0]!.delta.content).toBe('héllo ✓');
  });

  it('CRLF line ends, multi-line data and a finish reason', () => {
    const scanner = new SseScanner();
    const piece = scanner.push(
      bytes('data: {"id":"c1",\r\ndata: "choices":[{"finish_reason":"stop","delta":{}}]}\r\n\r\n'),
    );
    expect(piece.events).toEqual([{ id: 'c1', choices: [{ finish_reason: 'stop', delta: {} }] }]);
    expect(piece.finished).toBe(true);
  });

  it('stops at [DONE]: only what came before it is forwarded', () => {
    const scanner = new SseScanner();
    const piece = scanner.push(bytes(`${chunk('end', 'stop')}data: [DONE]\n\ndata: {"late":true}\n\n`));
    expect(piece.done).toBe(true);
    expect(text(piece.bytes)).toBe(chunk('end', 'stop'));
    expect(piece.events).toHaveLength(1);
  });

  it('stops at a provider error event (no choices), which is not forwarded', () => {
    const scanner = new SseScanner();
    const error = 'data: {"error":{"code":429,"message":"slow down"},"choices":[]}\n\n';
    const piece = scanner.push(bytes(`${chunk('Hi')}${error}${chunk('never')}`));
    expect(piece.error).toEqual({ code: 429, message: 'slow down' });
    expect(text(piece.bytes)).toBe(chunk('Hi'));
  });

  it('a last event without its blank line is read at the end of the stream', () => {
    const scanner = new SseScanner();
    expect(scanner.push(bytes('data: {"id":"x","choices":[]}')).events).toEqual([]);
    const rest = scanner.end();
    expect(rest.events).toEqual([{ id: 'x', choices: [] }]);
  });

  /** Push `pieces` one by one (then end), returning the forwarded text and the events, as the relay sees them. */
  const relay = (pieces: Uint8Array[]) => {
    const scanner = new SseScanner();
    const forwarded: string[] = [];
    const events: unknown[] = [];
    let done = false;
    for (const piece of pieces) {
      const scanned = scanner.push(piece);
      forwarded.push(text(scanned.bytes));
      events.push(...scanned.events);
      if (scanned.done) {
        done = true;
        break;
      }
    }
    if (!done) {
      const rest = scanner.end();
      forwarded.push(text(rest.bytes));
      events.push(...rest.events);
      done = rest.done;
    }
    return { forwarded: forwarded.join(''), events, done };
  };
  const split = (whole: Uint8Array, size: number) => {
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < whole.length; at += size) pieces.push(whole.subarray(at, at + size));
    return pieces;
  };

  it('a 3 MB event split in 16 KB pieces is forwarded whole, once, with its event', () => {
    const image = `data:image/png;base64,${'A'.repeat(3 << 20)}`;
    const big = `data: ${JSON.stringify({ id: 'c1', choices: [{ delta: { images: [{ image_url: { url: image } }] } }] })}\n\n`;
    const stream = `${chunk('before')}${big}${chunk('after', 'stop')}data: [DONE]\n\n`;
    const pieces = split(bytes(stream), 16_384);
    const scanner = new SseScanner();
    const sizes: number[] = [];
    for (const piece of pieces) {
      const scanned = scanner.push(piece);
      if (scanned.events.length) sizes.push(scanned.bytes.length);
    }
    const result = relay(pieces);
    expect(result.forwarded).toBe(`${chunk('before')}${big}${chunk('after', 'stop')}`);
    expect(result.done).toBe(true);
    expect(result.events).toHaveLength(3);
    expect(JSON.stringify(result.events[1])).toContain(image);
    // Nothing of the big event is forwarded before its end came: one piece carries it whole.
    expect(sizes.some((size) => size >= bytes(big).length)).toBe(true);
  });

  it('a blank line split between two pieces (LF | LF, LF CR | LF, LF | CR LF) ends the event there', () => {
    for (const newline of ['\n', '\r\n']) {
      const stream = `data: {"id":"a"}${newline}${newline}data: {"id":"b"}${newline}${newline}`;
      const whole = bytes(stream);
      const firstEnd = stream.indexOf('data: {"id":"b"}');
      for (let cut = firstEnd - 3; cut <= firstEnd; cut += 1) {
        const scanner = new SseScanner();
        const first = scanner.push(whole.subarray(0, cut));
        const second = scanner.push(whole.subarray(cut));
        expect(text(first.bytes) + text(second.bytes)).toBe(stream);
        expect([...first.events, ...second.events]).toEqual([{ id: 'a' }, { id: 'b' }]);
        // Nothing goes out before the blank line is complete; then the event goes out at once.
        expect(first.events).toEqual(cut === firstEnd ? [{ id: 'a' }] : []);
      }
    }
  });

  it('any split of a stream (CRLF, comments, multi-line data, multi-byte text) gives what the whole stream gives', () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return Math.floor((seed / 0x80000000) * below);
    };
    for (let trial = 0; trial < 300; trial += 1) {
      const newline = random(3) === 0 ? '\r\n' : '\n';
      let stream = '';
      const count = random(10) + 1;
      for (let index = 0; index < count; index += 1) {
        if (random(6) === 0) stream += `: OPENROUTER PROCESSING${newline}${newline}`;
        const json = JSON.stringify({
          id: 'x',
          choices: [
            {
              delta: { content: `é✓😀 `.repeat(random(3)) + index },
              finish_reason: index === count - 1 ? 'stop' : null,
            },
          ],
        });
        const cut = json.indexOf(',') + 1;
        stream +=
          random(5) === 0
            ? `data: ${json.slice(0, cut)}${newline}data:${json.slice(cut)}${newline}${newline}`
            : `data: ${json}${newline}${newline}`;
      }
      if (random(3) > 0) stream += `data: [DONE]${newline}${newline}`;
      const whole = bytes(stream);
      const expected = relay([whole]);
      const pieces: Uint8Array[] = [];
      for (let at = 0; at < whole.length; ) {
        const size = 1 + random(40);
        pieces.push(whole.subarray(at, at + size));
        at += size;
      }
      expect(relay(pieces)).toEqual(expected);
    }
  });
});
