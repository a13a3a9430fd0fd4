import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { loadConfig } from '../../src/core/config.js';
import { jsonDepthExceeds } from '../../src/core/util/json-depth.js';
import { filterSource, noopFilter } from './helpers/filter-source.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const inlet = (content: string) =>
  `{"body": {"model": "gpt-4o", "messages": [{"role": "user", "content": ${content}}]}}`;

describe('deeply nested JSON bodies (default JSON_MAX_DEPTH=100)', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: {
        'echo.ts': noopFilter(),
        'sink.ts': filterSource(`export default defineFilter({
  valves: baseValves.extend({ limits: z.record(z.string(), z.unknown()).default({}) }),
  inlet: ({ body }) => body,
});`),
      },
    });
  });
  afterAll(async () => runtime.dispose());

  const post = (path: string, text: string) =>
    request(runtime.app).post(path).set(runtime.auth).set('Content-Type', 'application/json').send(text);

  it.each(PREFIXES)(
    '200k nested arrays as the body → 400 JSON, not a 500 stack overflow (prefix "%s")',
    async (prefix) => {
      expectJsonError(
        await post(`${prefix}/echo/filter/inlet`, nestedArrays(200_000)),
        400,
        /nested deeper than 100 levels/,
      );
    },
  );

  it('20k nested objects inside a message → 400 JSON', async () => {
    expectJsonError(await post('/echo/filter/inlet', inlet(nestedObjects(20_000))), 400, /nested deeper than 100/);
    expectJsonError(await post('/echo/filter/outlet', inlet(nestedArrays(20_000))), 400, /nested deeper than 100/);
  });

  it('a deep valves update → 400 JSON', async () => {
    expectJsonError(await post('/sink/valves/update', `{"limits": ${nestedObjects(50_000)}}`), 400, /nested deeper/);
    expectJsonError(await post('/sink/valves/user/update?user_id=u1', nestedArrays(50_000)), 400, /nested deeper/);
  });

  it('an object valve typed as deep JSON text in the form → 400 JSON (was a 500 when saving)', async () => {
    const text = JSON.stringify({ limits: `{"a": ${nestedArrays(200_000)}}` });
    expectJsonError(await post('/sink/valves/update', text), 400, /nested deeper than 100 levels/);
    const ok = await post('/sink/valves/update', JSON.stringify({ limits: '{"user": {"monthly_usd": 20}}' })).expect(
      200,
    );
    expect(ok.body.limits).toEqual({ user: { monthly_usd: 20 } });
  });

  it('nesting up to the limit passes; brackets inside strings do not count', async () => {
    // The envelope and message take 4 levels: content nested 96 deep makes exactly 100.
    const atLimit = await post('/echo/filter/inlet', inlet(nestedArrays(96))).expect(200);
    expect(JSON.stringify(atLimit.body.messages[0].content)).toBe(nestedArrays(96));
    expectJsonError(await post('/echo/filter/inlet', inlet(nestedArrays(97))), 400, /nested deeper than 100/);
    const text = `[[[{{{ "\\" ${'['.repeat(5000)}`;
    const response = await post('/echo/filter/inlet', inlet(JSON.stringify(text))).expect(200);
    expect(response.body.messages[0].content).toBe(text);
  });

  it('a UTF-16 body is scanned decoded: deep → 400, shallow → 200; a charset without a decoder → 400', async () => {
    const utf16 = (text: string) =>
      request(runtime.app)
        .post('/echo/filter/inlet')
        .set(runtime.auth)
        .set('Content-Type', 'application/json; charset=utf-16')
        .serialize((data: unknown) => data as string)
        .send(Buffer.from(`\ufeff${text}`, 'utf16le'));
    expectJsonError(await utf16(nestedArrays(1000)), 400, /nested deeper than 100/);
    const ok = await utf16(inlet('"[[[[ é"')).expect(200);
    expect(ok.body.messages[0].content).toBe('[[[[ é');
    const utf32 = await request(runtime.app)
      .post('/echo/filter/inlet')
      .set(runtime.auth)
      .set('Content-Type', 'application/json; charset=utf-32')
      .serialize((data: unknown) => data as string)
      .send(Buffer.from('{}'));
    expectJsonError(utf32, 400, /Unsupported charset/);
  });

  it('the server keeps answering after hostile bodies', async () => {
    await post('/echo/filter/inlet', nestedArrays(200_000)).expect(400);
    await post('/echo/filter/inlet', inlet('"ok"')).expect(200);
  });
});

describe('JSON_MAX_DEPTH', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'echo.ts': noopFilter() }, env: { JSON_MAX_DEPTH: '8' } });
  });
  afterAll(async () => runtime.dispose());

  it('is configurable: 8 levels pass, 9 are a 400 naming the limit', async () => {
    const send = (depth: number) =>
      request(runtime.app)
        .post('/echo/filter/inlet')
        .set(runtime.auth)
        .set('Content-Type', 'application/json')
        .send(inlet(nestedArrays(depth)));
    await send(4).expect(200);
    expectJsonError(await send(5), 400, 'JSON body nested deeper than 8 levels (JSON_MAX_DEPTH)');
  });

  it('rejects bad values at start-up', () => {
    expect(loadConfig({}).JSON_MAX_DEPTH).toBe(100);
    expect(() => loadConfig({ JSON_MAX_DEPTH: '0' })).toThrow(/JSON_MAX_DEPTH/);
  });
});

describe('jsonDepthExceeds (iterative scan of the raw text)', () => {
  it.each([
    ['[]', 1, false],
    ['[[]]', 1, true],
    ['{"a": {"b": [1]}}', 3, false],
    ['{"a": {"b": [1]}}', 2, true],
    ['["[[[[[", "]]]"]', 1, false],
    ['["\\"[[[["]', 1, false],
    ['["\\\\", [[1]]]', 2, true],
    ['["a\\\\\\"[[[", 1]', 1, false],
    ['"unterminated [[[[', 1, false],
  ] as const)('%s at most %i deep → exceeds: %s', (text, max, exceeds) => {
    expect(jsonDepthExceeds(text, max)).toBe(exceeds);
    expect(jsonDepthExceeds(Buffer.from(text), max)).toBe(exceeds);
  });

  it('scans UTF-8 bytes and 200k levels without recursion', () => {
    expect(jsonDepthExceeds(Buffer.from('["é€😀[[[", ["ü"]]'), 2)).toBe(false);
    expect(jsonDepthExceeds(nestedArrays(200_000), 100)).toBe(true);
  });
});
