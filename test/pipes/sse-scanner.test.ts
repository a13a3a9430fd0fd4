import { describe, expect, it } from 'vitest';
import { SseScanner } from '../../src/proxy/sse-scanner.js';

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
});
