import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { noopFilter } from './helpers/filter-source.js';
import { expectJsonError } from './helpers/http.js';

describe('body.messages is checked at the HTTP boundary', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'noop.ts': noopFilter() } });
  });
  afterAll(async () => runtime.dispose());

  const send = (hook: 'inlet' | 'outlet', body: unknown) =>
    request(runtime.app)
      .post(`/noop/filter/${hook}`)
      .set(runtime.auth)
      .send({ body, user: { id: 'u1' } });

  it.each([
    ['not an array', { messages: { role: 'user', content: 'hi' } }, /body\.messages must be an array/],
    ['a non-object entry', { messages: [{ role: 'user', content: 'hi' }, 'hello'] }, /body\.messages\[1\]/],
    ['a null entry', { messages: [null] }, /body\.messages\[0\]/],
    ['a missing role', { messages: [{ role: 'user', content: 'a' }, { content: 'b' }] }, /body\.messages\[1\]/],
    ['a numeric role', { messages: [{ role: 1, content: 'a' }] }, /body\.messages\[0\]/],
    ['content an object', { messages: [{ role: 'user', content: { text: 'a' } }] }, /body\.messages\[0\]/],
    ['tool_calls an object', { messages: [{ role: 'assistant', content: null, tool_calls: {} }] }, /\[0\]/],
  ])('%s → 400 naming the first bad message', async (_name, body, detail) => {
    for (const hook of ['inlet', 'outlet'] as const) {
      const response = await send(hook, { model: 'gpt-4o', ...body });
      expectJsonError(response, 400, detail);
    }
  });

  it('accepts what clients send, unchanged: null content, parts, tool calls, extra keys, no messages', async () => {
    const messages = [
      { role: 'system', content: 'be brief' },
      {
        id: 'u-1',
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok', timestamp: 1, info: { a: 1 } },
      { role: 'assistant', content: [[[]]], usage: null },
    ];
    for (const body of [{ model: 'gpt-4o', messages }, { model: 'gpt-4o' }, { model: 'gpt-4o', messages: [] }]) {
      const response = await send('inlet', body).expect(200);
      expect(response.text).toBe(JSON.stringify(body));
    }
  });
});
