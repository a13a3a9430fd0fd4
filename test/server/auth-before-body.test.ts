import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, TEST_API_KEY, type TestRuntime } from '../helpers/create-test-runtime.js';
import { createHttpServer } from '../../src/server/http-server.js';
import { noopFilter } from './helpers/filter-source.js';
import { waitFor } from '../helpers/wait-for.js';
import { PREFIXES } from './helpers/http.js';
import { openRawSocket, parseRawResponse } from './helpers/raw-socket.js';

/**
 * The API key is checked before any body is read: a request that announces a 49 MB body but
 * sends only its headers gets its 401 at once, and the server closes the connection instead of
 * reading (and parsing) the body. On loopback through the real HTTP server.
 */
describe('auth before the body', () => {
  let runtime: TestRuntime;
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'echo.ts': noopFilter() } });
    server = createHttpServer(runtime.app, {
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 600_000,
      keepAliveTimeoutMs: 65_000,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await runtime.dispose();
  });

  const headersOnly = (path: string, extra: string[]) =>
    [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', ...extra, '', ''].join('\r\n');

  const cases = PREFIXES.flatMap(
    (prefix) =>
      [
        [`${prefix}/echo/filter/inlet`, [], 'Not authenticated'],
        [`${prefix}/echo/filter/inlet`, ['Authorization: Bearer wrong-key'], 'Invalid API key'],
        [`${prefix}/echo/valves/update`, ['Authorization: Basic abc'], 'Not authenticated'],
        [`${prefix}/no/such/route`, [], 'Not authenticated'],
      ] as Array<[string, string[], string]>,
  );

  it.each(cases)(
    'POST %s %j with Content-Length 49 MB and no body sent → 401 JSON, connection closed',
    async (path, auth, detail) => {
      const socket = await openRawSocket(port);
      socket.write(headersOnly(path, [...auth, `Content-Length: ${49 * 1024 * 1024}`]));
      // Not one byte of the body is sent: the answer and the close must come anyway.
      const response = parseRawResponse(await socket.closed);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail });
      expect(response.headers).toMatch(/content-type: application\/json/i);
      expect(response.headers).toMatch(/connection: close/i);
    },
  );

  it('a chunked body without a key → 401 without the body', async () => {
    const socket = await openRawSocket(port);
    socket.write(headersOnly('/echo/filter/inlet', ['Transfer-Encoding: chunked']));
    const response = parseRawResponse(await socket.closed);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Not authenticated' });
  });

  it('with the key, the same request waits for its body and is answered 200', async () => {
    const body = JSON.stringify({ body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } });
    const socket = await openRawSocket(port);
    socket.write(
      headersOnly('/echo/filter/inlet', [
        `Authorization: Bearer ${TEST_API_KEY}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
      ]),
    );
    socket.write(body);
    const response = parseRawResponse(await socket.closed);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('Expect: 100-continue without a valid key → 401 at once, never "100 Continue"', async () => {
    const socket = await openRawSocket(port);
    socket.write(
      headersOnly('/v1/echo/filter/inlet', [
        'Authorization: Bearer wrong-key',
        'Expect: 100-continue',
        `Content-Length: ${49 * 1024 * 1024}`,
      ]),
    );
    const text = await socket.closed;
    expect(text).not.toMatch(/100 Continue/);
    expect(parseRawResponse(text)).toMatchObject({ status: 401, body: { detail: 'Invalid API key' } });
  });

  it('Expect: 100-continue with the key → "100 Continue" once, then the body is read and answered', async () => {
    const body = JSON.stringify({ body: { model: 'gpt-4o', messages: [] } });
    const socket = await openRawSocket(port);
    socket.write(
      headersOnly('/v1/echo/filter/inlet', [
        `Authorization: Bearer ${TEST_API_KEY}`,
        'Expect: 100-continue',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
      ]),
    );
    await waitFor(async () => socket.received(), { until: (text) => text.includes('100 Continue') });
    socket.write(body);
    const text = await socket.closed;
    expect(text.match(/100 Continue/g)).toHaveLength(1);
    const final = text.slice(text.indexOf('\r\n\r\n') + 4);
    expect(parseRawResponse(final)).toMatchObject({ status: 200, body: { model: 'gpt-4o', messages: [] } });
  });

  it('GET / needs no key and keeps the connection open', async () => {
    const socket = await openRawSocket(port);
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await waitFor(async () => socket.received(), { until: (text) => text.includes('{"status":true}') });
    expect(socket.received()).not.toMatch(/connection: close/i);
    socket.destroy();
  });
});
