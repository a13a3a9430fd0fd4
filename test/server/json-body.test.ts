import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { noopFilter } from './helpers/filter-source.js';

/**
 * Plain UTF-8 JSON bodies are read by Eunoe's own fast path; every other request goes through
 * express.json. A Content-Type parameter other than charset sends the same bytes down the
 * general path, so each case is answered both ways and the answers must be the same.
 */
describe('the JSON body reader answers like express.json', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'echo.ts': noopFilter() } });
  });
  afterAll(async () => runtime.dispose());

  const post = (text: string, type: string) =>
    request(runtime.app).post('/echo/filter/inlet').set(runtime.auth).set('Content-Type', type).send(text);
  const answerBothWays = async (text: string) => {
    const fast = await post(text, 'application/json');
    const general = await post(text, 'application/json; profile=general');
    return { fast: { status: fast.status, body: fast.body }, general: { status: general.status, body: general.body } };
  };
  const envelope = JSON.stringify({ body: { model: 'm', messages: [{ role: 'user', content: 'héllo ✓' }] } });

  it.each([
    ['a valid envelope', envelope, 200],
    ['malformed JSON', '{"body": {"model": "m",}}', 400],
    ['a top-level string (strict mode)', '"just text"', 400],
    ['a top-level number after spaces', '   42', 400],
    ['an empty body (parsed as {}, then refused by the envelope check)', '', 400],
    ['a body nested too deep', '['.repeat(500) + ']'.repeat(500), 400],
  ])('%s', async (_label, text, status) => {
    const { fast, general } = await answerBothWays(text);
    expect(fast.status).toBe(status);
    expect(fast).toEqual(general);
  });

  it('a UTF-8 byte-order mark is dropped, and multi-byte characters survive', async () => {
    const { fast, general } = await answerBothWays(`\uFEFF${envelope}`);
    expect(fast.status).toBe(200);
    expect(fast.body.messages[0].content).toBe('héllo ✓');
    expect(fast).toEqual(general);
  });

  it('charset=utf-8 (any case, quoted) takes the fast path and parses the same', async () => {
    const response = await post(envelope, 'application/json; charset="UTF-8"');
    expect(response.status).toBe(200);
    expect(response.body.model).toBe('m');
  });

  it.each([
    'application/json; charset=utf-8=x',
    'application/json; charset=utf-8"',
    'application/json; charset=latin1',
  ])('an odd Content-Type parameter goes to express.json and gets its answer (%s)', async (type) => {
    const odd = await post(envelope, type);
    const general = await post(envelope, `${type}; profile=general`);
    expect(odd.status).not.toBe(200);
    expect({ status: odd.status, body: odd.body }).toEqual({ status: general.status, body: general.body });
  });

  it('a client that leaves mid-body gets nothing and breaks nothing: the next request is answered', async () => {
    const server = http.createServer(runtime.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const received = new Promise((resolve) => server.once('request', resolve));
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const auth = Object.entries(runtime.auth)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(
        `POST /echo/filter/inlet HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"body": {"mod`,
      );
      await received; // the server has the request and is reading its body
      socket.destroy();
      const after = await fetch(`http://127.0.0.1:${port}/echo/filter/inlet`, {
        method: 'POST',
        headers: { ...runtime.auth, 'content-type': 'application/json' },
        body: envelope,
      });
      expect(after.status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a malformed body is named in the error detail', async () => {
    const response = await post('{"body": [}', 'application/json');
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^Invalid JSON body: /);
  });
});
