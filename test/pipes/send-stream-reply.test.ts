import http from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendStreamReply } from '../../src/runtime/pipes/send-reply.js';
import type { PipeChunk } from '../../src/runtime/pipes/types.js';
import { createLogger } from '../../src/core/util/logger.js';
import { waitFor } from '../helpers/wait-for.js';
import { listen, sseData } from './helpers/sse.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** sendStreamReply on a real HTTP server, with a logger whose lines the tests read. */
describe('sendStreamReply', () => {
  const logs: Array<{ msg: string; err?: string }> = [];
  const listeners: Array<{ drains: number; close: number; error: number; closeBefore: number; errorBefore: number }> =
    [];
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    const destination = new Writable({
      write(line, _encoding, callback) {
        logs.push(JSON.parse(String(line)));
        callback();
      },
    });
    const logger = createLogger({ level: 'warn', destination });
    const app = express();
    app.get('/fails-after-done', async (_request, response) => {
      async function* pipe(): AsyncGenerator<PipeChunk> {
        try {
          yield 'Hello';
          yield 'data: [DONE]';
        } finally {
          await sleep(5);
          // biome-ignore lint/correctness/noUnsafeFinally: the subject is a pipe whose cleanup fails after [DONE].
          throw new Error('cleanup failed');
        }
      }
      await sendStreamReply({ response, result: pipe(), model: 'm', pipeId: 'failing', logger });
    });
    app.get('/many-big-events', async (_request, response) => {
      const count = {
        drains: 0,
        closeBefore: response.listenerCount('close'),
        errorBefore: response.listenerCount('error'),
      };
      response.on('drain', () => {
        count.drains += 1;
      });
      async function* pipe(): AsyncGenerator<PipeChunk> {
        for (let index = 0; index < 120; index += 1) yield 'x'.repeat(65_536);
      }
      await sendStreamReply({ response, result: pipe(), model: 'm', pipeId: 'big', logger });
      listeners.push({ ...count, close: response.listenerCount('close'), error: response.listenerCount('error') });
    });
    server = await listen(app);
  });
  afterAll(async () => server.close());

  it('a pipe failing after [DONE]: the answer stays complete, nothing is written after it, the log says when it failed', async () => {
    const answer = await fetch(`${server.url}/fails-after-done`);
    const text = await answer.text();
    expect(sseData(text).at(-1)).toBe('[DONE]');
    expect(text).not.toContain('error');
    const logged = await waitFor(() => logs.find((line) => line.err?.includes('cleanup failed')));
    expect(logged?.msg).toBe('pipe failed after its answer ended (the client has the whole answer)');
    expect(logs.filter((line) => line.msg === 'pipe failed after the first byte')).toEqual([]);
  });

  it('a slow client: every wait for the socket to drain removes its listeners when it ends', async () => {
    const received = await new Promise<number>((resolve, reject) => {
      http
        .get(`${server.url}/many-big-events`, (response) => {
          let length = 0;
          // The client reads nothing for a while: the server's writes wait for the socket to drain.
          response.pause();
          setTimeout(() => response.resume(), 200);
          response.on('data', (piece: Buffer) => {
            length += piece.length;
          });
          response.on('end', () => resolve(length));
        })
        .on('error', reject);
    });
    expect(received).toBeGreaterThan(120 * 65_536);
    const [count] = await waitFor(() => listeners, { until: (seen) => seen.length === 1 });
    expect(count!.drains).toBeGreaterThan(10);
    // The writer's own close listener, nothing per drain wait.
    expect(count!.close).toBeLessThanOrEqual(count!.closeBefore + 1);
    expect(count!.error).toBeLessThanOrEqual(count!.errorBefore);
  });
});
