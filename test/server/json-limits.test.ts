import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { jsonLimitExceeded } from '../../src/core/util/json-depth.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { noopFilter } from './helpers/filter-source.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

const limits = (maxEntries: number) => ({ maxDepth: 100, maxEntries });

describe('jsonLimitExceeded: keys and array elements in all, counted on the raw text', () => {
  it.each([
    ['[]', 0],
    ['{}', 0],
    ['[ ]', 0],
    ['[1]', 1],
    ['[1, 2, 3]', 3],
    ['{"a": 1, "b": [1, 2], "c": {}}', 5],
    ['{"a": [[], [ ], {"x": null}]}', 5],
    ['["a,b,c", "[{,}]", "\\",\\""]', 3],
    ['{"é€😀": "a,b", "k": ["ü,"]}', 3],
    ['\n[\n\t1 ,\r\n 2\n]\n', 2],
  ])('%s holds %i', (text, entries) => {
    for (const input of [text, Buffer.from(text)]) {
      expect(jsonLimitExceeded(input, limits(entries))).toBeUndefined();
      if (entries > 0) expect(jsonLimitExceeded(input, limits(entries - 1))).toBe('entries');
    }
  });

  it('names depth when the nesting is past its limit first', () => {
    expect(jsonLimitExceeded('[[[1]]]', { maxDepth: 2, maxEntries: 100 })).toBe('depth');
  });
});

describe('JSON_MAX_KEYS and JSON_MAX_MESSAGES', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: { 'echo.ts': noopFilter() },
      env: { JSON_MAX_KEYS: '40', JSON_MAX_MESSAGES: '5' },
    });
  });
  afterAll(async () => runtime.dispose());

  const chat = (count: number) => Array.from({ length: count }, (_, index) => ({ role: 'user', content: `m${index}` }));
  const TOO_MANY_KEYS =
    'JSON body has more than 40 keys and array elements in all (JSON_MAX_KEYS; the admin can raise it)';

  it('defaults: 200,000 keys and elements, 10,000 messages; at least 1', () => {
    expect(loadConfig({})).toMatchObject({ JSON_MAX_KEYS: 200_000, JSON_MAX_MESSAGES: 10_000 });
    expect(() => loadConfig({ JSON_MAX_KEYS: '0' })).toThrow(/JSON_MAX_KEYS/);
    expect(() => loadConfig({ JSON_MAX_MESSAGES: 'many' })).toThrow(/JSON_MAX_MESSAGES/);
  });

  it.each(PREFIXES)(
    'a hook body up to the limits is answered; one past either is a 413 naming it ("%s")',
    async (prefix) => {
      const post = (body: object) =>
        request(runtime.app).post(`${prefix}/echo/filter/inlet`).set(runtime.auth).send(body);
      const five = await post({ body: { model: 'm', messages: chat(5) } });
      expect(five.status).toBe(200);
      expect(five.body.messages).toHaveLength(5);
      expectJsonError(
        await post({ body: { model: 'm', messages: chat(6) } }),
        413,
        'body.messages has 6 messages, more than 5 (JSON_MAX_MESSAGES; the admin can raise it)',
      );
      // 1 + 2 + 37 = 40 entries: accepted; one more key is past JSON_MAX_KEYS.
      const metadata = (count: number) =>
        Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 1]));
      expect((await post({ body: { metadata: metadata(37), model: 'm' } })).status).toBe(200);
      expectJsonError(await post({ body: { metadata: metadata(38), model: 'm' } }), 413, TOO_MANY_KEYS);
    },
  );

  it('/chat/completions counts its own messages', async () => {
    expectJsonError(
      await request(runtime.app)
        .post('/chat/completions')
        .set(runtime.auth)
        .send({ model: 'echo', messages: chat(6) }),
      413,
      'messages has 6 messages, more than 5 (JSON_MAX_MESSAGES; the admin can raise it)',
    );
  });

  it('a body express.json reads (another Content-Type parameter) is held to the same limits', async () => {
    const general = (body: object) =>
      request(runtime.app)
        .post('/echo/filter/inlet')
        .set(runtime.auth)
        .set('Content-Type', 'application/json; profile=general')
        .send(JSON.stringify(body));
    expect((await general({ body: { model: 'm', messages: chat(5) } })).status).toBe(200);
    expectJsonError(await general({ body: { model: 'm', messages: chat(6) } }), 413, /JSON_MAX_MESSAGES/);
    expectJsonError(
      await general({ body: { model: 'm', list: Array.from({ length: 50 }, () => 0) } }),
      413,
      TOO_MANY_KEYS,
    );
  });
});
