import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource, noopFilter } from './helpers/filter-source.js';
import { expectJsonError } from './helpers/http.js';

/**
 * Errors say where and what: a hook's 500 names its filter and hook, a bad message names the field at fault (a
 * numeric `content` is not "a bad role"), and a default export with none of a filter's fields is refused at load
 * instead of loading as a filter that does nothing.
 */
const thrower = filterSource(`export default defineFilter({
  inlet() { throw new Error('boom'); },
});`);

describe('error details', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: { 'thrower.ts': thrower, 'noop.ts': noopFilter(), 'hello.ts': 'export default { hello: 1 };\n' },
    });
  });
  afterAll(async () => runtime.dispose());

  it("a hook's 500 names the filter and the hook", async () => {
    const response = await request(runtime.app)
      .post('/thrower/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } });
    expectJsonError(response, 500, 'Filter thrower inlet failed: boom');
  });

  it.each([
    [{ role: 'user', content: 42 }, 'content must be a string, null or an array of content parts, not a number'],
    [{ role: 7, content: 'hi' }, 'role must be a string, not a number'],
    [{ content: 'hi' }, 'role is missing (a string: user, assistant, system, tool…)'],
    [{ role: 'assistant', content: null, tool_calls: 'x' }, 'tool_calls must be an array or null, not a string'],
    ['hi', 'a chat message is an object with a string role, not a string'],
  ])('a bad message names the field at fault: %j', async (message, reason) => {
    const messages = [{ role: 'system', content: 'ok' }, message];
    const hook = await request(runtime.app)
      .post('/noop/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm', messages } });
    expectJsonError(hook, 400, `body.messages[1] is not a chat message: ${reason}`);
    const chat = await request(runtime.app).post('/chat/completions').set(runtime.auth).send({ model: 'm', messages });
    expectJsonError(chat, 400, `messages[1] is not a chat message: ${reason}`);
  });

  it('`export default { hello: 1 }` is refused at load, with a clear error', async () => {
    const listed = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    const hello = listed.body.data.find((entry: { id: string }) => entry.id === 'hello');
    expect(hello).toMatchObject({ status: 'failed', file: 'hello.ts' });
    expect(hello.error).toMatch(/none of a filter's fields \(name, valves, inlet, outlet…\), only hello/);
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(models.body.data.map((model: { id: string }) => model.id)).not.toContain('hello');
    const call = await request(runtime.app)
      .post('/hello/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } });
    expectJsonError(call, 503, /none of a filter's fields/);
  });
});
