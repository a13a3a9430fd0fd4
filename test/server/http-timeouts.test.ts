import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { openRawSocket, parseRawResponse, type RawSocket } from './helpers/raw-socket.js';

const KEY = 'timeouts-key';

/** Send one byte of `text` every `everyMs` until the server closes the connection. */
function trickle(socket: RawSocket, text: string, everyMs: number): () => void {
  let index = 0;
  const timer = setInterval(() => socket.write(text[index++ % text.length]!), everyMs);
  void socket.closed.then(() => clearInterval(timer));
  return () => clearInterval(timer);
}

/**
 * Slow clients against the real server process (`src/main.ts`) with small configured limits:
 * headers that trickle in, a body that trickles in, an idle keep-alive connection. Each is cut
 * off by the server (408 JSON for the first two); the test waits for the close, never for a time.
 */
describe('HTTP time limits (HEADERS_TIMEOUT_MS=400, REQUEST_TIMEOUT_MS=1200, KEEP_ALIVE_TIMEOUT_MS=300)', () => {
  let root: string;
  let server: ServerProcess;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-timeouts-'));
    mkdirSync(path.join(root, 'filters'));
    server = await startServerProcess({
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: path.join(root, 'filters'),
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
      WATCH_FILTERS: 'false',
      HEADERS_TIMEOUT_MS: '400',
      REQUEST_TIMEOUT_MS: '1200',
      KEEP_ALIVE_TIMEOUT_MS: '300',
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('headers trickling in (one byte every 100 ms) → 408 JSON and the connection is closed', async () => {
    const socket = await openRawSocket(server.port);
    socket.write('POST /models HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    trickle(socket, 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 100);
    const response = parseRawResponse(await socket.closed);
    expect(response.status).toBe(408);
    expect(response.body).toEqual({ detail: expect.stringMatching(/not received in time/) });
    expect(response.headers).toMatch(/content-type: application\/json/i);
  }, 15_000);

  it('an authenticated body trickling in (one byte every 100 ms) → 408 JSON and the connection is closed', async () => {
    const socket = await openRawSocket(server.port);
    socket.write(
      `POST /no-such/filter/inlet HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    );
    trickle(socket, '{"body": {"model": "x", "messages": []}} ', 100);
    const response = parseRawResponse(await socket.closed);
    expect(response.status).toBe(408);
    expect(response.body).toEqual({ detail: expect.stringMatching(/not received in time/) });
  }, 15_000);

  it('an idle keep-alive connection is closed by the server after its request was answered', async () => {
    const socket = await openRawSocket(server.port);
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    const text = await socket.closed;
    expect(parseRawResponse(text).body).toEqual({ status: true });
    // Kept alive by the answer (no `Connection: close`): the close came from the idle limit.
    expect(parseRawResponse(text).headers).not.toMatch(/connection: close/i);
  }, 15_000);

  it('malformed HTTP and oversized headers are JSON errors too (400, 431)', async () => {
    const garbage = await openRawSocket(server.port);
    garbage.write('NOT HTTP AT ALL\r\n\r\n');
    const bad = parseRawResponse(await garbage.closed);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ detail: expect.stringMatching(/Malformed HTTP request/) });
    const huge = await openRawSocket(server.port);
    huge.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const tooLarge = parseRawResponse(await huge.closed);
    expect(tooLarge.status).toBe(431);
    expect(tooLarge.body).toEqual({ detail: 'Request headers too large' });
  }, 15_000);

  it('the server keeps serving afterwards; a normal request is unaffected', async () => {
    const response = await fetch(`${server.url}/health`, { headers: { Authorization: `Bearer ${KEY}` } });
    expect(response.status).toBe(200);
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
  });
});

describe('time limit configuration', () => {
  it('defaults: headers 60 s, whole request 10 min, keep-alive 65 s', () => {
    const config = loadConfig({});
    expect([config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS, config.KEEP_ALIVE_TIMEOUT_MS]).toEqual([
      60_000, 600_000, 65_000,
    ]);
  });

  it('bad values stop start-up naming the variable', () => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: 'soon' })).toThrow(/HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '9000', REQUEST_TIMEOUT_MS: '5000' })).toThrow(
      /HEADERS_TIMEOUT_MS.*REQUEST_TIMEOUT_MS/,
    );
  });
});
