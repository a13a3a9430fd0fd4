import { execFile } from 'node:child_process';
import http from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_PHRASE_MAX, reasonPhrase } from '../../src/core/errors/index.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-server.js';
import { reportedReplyOutlet } from '../helpers/server-calls.js';
import { filterSource } from './helpers/filter-source.js';
import { openRawSocket } from './helpers/raw-socket.js';

/**
 * A filter's refusal reaches the chat through Open WebUI's Pipelines client only by the status line's reason phrase.
 * open-webui/open-webui backend/open_webui/routers/pipelines.py, process_pipeline_inlet_filter: in v0.6.x (commit
 * f1cbcf87) it reads the JSON before `response.raise_for_status()`; later versions (the same function in copies of
 * newer upstream, single-quoted, with `get_openai_connection`) call `response.raise_for_status()` first inside
 * `async with session.post(...)`, try `await response.json()` only after the block released the response (which
 * fails and is swallowed), then `raise HTTPException(status_code=response.status, detail=e.message)`: aiohttp's
 * ClientResponseError message is the response's reason phrase. So the refusal's text must be the reason phrase.
 */
const user = { id: 'u-reason', email: 'reason@example.com', name: 'R', role: 'user' };

const BUDGET = 'Your daily budget of $0.10 is used up… it resets at midnight (UTC).\n\nAsk your admin for more.';
const refusing = (message: string, status = 429) =>
  filterSource(`export default defineFilter({
  inlet: () => { throw new FilterError(${status}, ${JSON.stringify(message)}); },
  outlet: () => { throw new FilterError(${status}, ${JSON.stringify(message)}, { code: 'ERR_OWN' }); },
});`);

describe('a refusal carries its text in the HTTP reason phrase', () => {
  let runtime: TestRuntime;
  let server: LoopbackHttp;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['accounting.ts', 'spend-limit.ts'],
      sources: {
        'budget.ts': refusing(BUDGET),
        'budget-worker.ts': refusing(BUDGET),
        'accents.ts': refusing('Über-Limit — “réservé” für € 5 😀\tnow', 403),
        'long.ts': refusing(`Too long: ${'word '.repeat(200)}`, 503),
        'empty.ts': refusing('\n\t😀'.replace('😀', ''), 429),
      },
      // The same refusal from a filter in a worker thread crosses the thread boundary as a typed error.
      env: { FILTER_ISOLATION_OVERRIDES: 'budget-worker=worker' },
    });
    server = await listenOnLoopback(runtime.app);
  });
  afterAll(async () => {
    await server?.close();
    await runtime?.dispose();
  });

  /** POST a hook call on a raw socket; the status line as sent and the JSON body. */
  async function rawHook(path: string): Promise<{ statusLine: string; body: unknown }> {
    const payload = JSON.stringify({
      body: { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] },
      user,
    });
    const socket = await openRawSocket(server.port);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${runtime.auth.Authorization}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
    );
    const text = await socket.closed;
    const head = text.slice(0, text.indexOf('\r\n\r\n'));
    return { statusLine: head.split('\r\n')[0]!, body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) };
  }

  it.each(['budget', 'budget-worker'])(
    'inlet and outlet of %s: the message on the status line, the JSON as it was',
    async (id) => {
      for (const hook of ['inlet', 'outlet']) {
        const { statusLine, body } = await rawHook(`/${id}/filter/${hook}`);
        expect(statusLine).toBe(
          'HTTP/1.1 429 Your daily budget of $0.10 is used up... it resets at midnight (UTC). Ask your admin for more.',
        );
        expect(body).toEqual({ detail: BUDGET });
      }
    },
  );

  it('non-ASCII is spelled in ASCII, one line; a long message is cut; nothing printable keeps the standard phrase', async () => {
    expect((await rawHook('/accents/filter/inlet')).statusLine).toBe(
      'HTTP/1.1 403 Uber-Limit - "reserve" fur EUR 5 ? now',
    );
    const long = await rawHook('/long/filter/inlet');
    const phrase = long.statusLine.replace(/^HTTP\/1\.1 503 /, '');
    expect(phrase).toHaveLength(REASON_PHRASE_MAX);
    expect(phrase).toBe(`Too long: ${'word '.repeat(48)}wor...`);
    expect((long.body as { detail: string }).detail).toBe(`Too long: ${'word '.repeat(200)}`);
    expect((await rawHook('/empty/filter/inlet')).statusLine).toBe('HTTP/1.1 429 Too Many Requests');
  });

  it('the spend limit’s own refusal, read as http.get reads it (res.statusMessage)', async () => {
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ daily_limit_usd: 0.01 })
      .expect(200);
    const outlet = reportedReplyOutlet('c-reason');
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({ body: outlet, user })
      .expect(200);
    const { status, statusMessage, body } = await new Promise<{
      status?: number;
      statusMessage?: string;
      body: string;
    }>((resolve, reject) => {
      const payload = JSON.stringify({
        body: { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] },
        user,
      });
      const call = http.request(
        `${server.origin}/spend-limit/filter/inlet`,
        { method: 'POST', headers: { ...runtime.auth, 'Content-Type': 'application/json' } },
        (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode, statusMessage: response.statusMessage, body: text }),
          );
        },
      );
      call.on('error', reject);
      call.end(payload);
    });
    expect(status).toBe(429);
    const detail = (JSON.parse(body) as { detail: string }).detail;
    expect(detail).toMatch(/^Your daily budget of \$0\.01 is used up; it resets /);
    expect(statusMessage).toBe(reasonPhrase(detail));
    expect(statusMessage).toMatch(/^Your daily budget of \$0\.01 is used up; it resets /);
  });

  it('a Python client reads it as the error’s reason (urllib, as aiohttp’s raise_for_status puts it in e.message)', async () => {
    const script = `
import json, sys, urllib.request, urllib.error
payload = json.dumps({"body": {"model": "m", "messages": []}, "user": {"id": "u"}}).encode()
request = urllib.request.Request(sys.argv[1], data=payload, method="POST",
    headers={"Authorization": sys.argv[2], "Content-Type": "application/json"})
try:
    urllib.request.urlopen(request)
except urllib.error.HTTPError as error:
    print(json.dumps({"status": error.code, "reason": error.reason, "detail": json.loads(error.read())["detail"]}))
`;
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        'python3',
        ['-c', script, `${server.origin}/budget/filter/inlet`, runtime.auth.Authorization],
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    expect(JSON.parse(output)).toEqual({
      status: 429,
      reason: 'Your daily budget of $0.10 is used up... it resets at midnight (UTC). Ask your admin for more.',
      detail: BUDGET,
    });
  });

  it('reasonPhrase: control characters and line breaks become one space; the result is ASCII', () => {
    expect(reasonPhrase('a\r\nb\u0000c\u2028d')).toBe('a b c d');
    expect(reasonPhrase('   ')).toBeUndefined();
    expect(reasonPhrase('x'.repeat(1000))).toHaveLength(REASON_PHRASE_MAX);
    expect(reasonPhrase('naïve café 日本')).toBe('naive cafe ??');
  });
});
