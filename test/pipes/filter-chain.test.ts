import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';
import { pipeSource } from './helpers/pipe-source.js';
import { sseContent, sseData } from './helpers/sse.js';
import { waitFor } from '../helpers/wait-for.js';

/** A filter that adds a system message, so the upstream shows whether the inlet chain ran. */
const markerFilter = pipeSource(`export default defineFilter({
  name: 'Marker',
  valves: baseValves.extend({ priority: z.number().int().default(10) }),
  inlet: ({ body }) => ({ ...body, messages: [{ role: 'system', content: 'marker-inlet' }, ...body.messages] }),
});`);

/**
 * A pipe with inlet/outlet hooks of its own (as Python pipes may have): its inlet records the
 * first message it sees, its outlet marks the reply; the reply lists the messages the pipe got.
 */
const hookedPipe = pipeSource(`export default definePipe({
  name: 'Hooked',
  inlet: ({ body }) => ({
    ...body,
    messages: [...body.messages, { role: 'user', content: 'pipe-inlet saw ' + body.messages[0].content }],
  }),
  outlet: ({ body }) => {
    const messages = [...body.messages];
    const last = messages[messages.length - 1];
    messages[messages.length - 1] = { ...last, content: last.content + ' [pipe-outlet]' };
    return { ...body, messages };
  },
  pipe: ({ messages }) => messages.map((message) => message.content).join(' | '),
});`);

describe('the filter chain around pipes: direct callers get it, Open WebUI does not', () => {
  let runtime: TestRuntime;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    runtime = await createTestRuntime({
      filters: ['openai-proxy.ts', 'accounting.ts', 'spend-limit.ts'],
      sources: { 'marker.ts': markerFilter, 'hooked.ts': hookedPipe },
      env: { FILTER_ISOLATION: 'off' },
    });
    const update = (id: string, values: Record<string, unknown>) =>
      request(runtime.app).post(`/${id}/valves/update`).set(runtime.auth).send(values).expect(200);
    await update('openai-proxy', { base_url: fake.url, api_key: 'sk-upstream' });
    await update('accounting', { show_usage: true });
    await update('spend-limit', { user_limits: { 'u-capped': { daily_usd: 0.0001 } } });
  });
  afterAll(async () => {
    await runtime.dispose();
    await fake.close();
  });

  const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    request(runtime.app)
      .post('/v1/chat/completions')
      .set({ ...runtime.auth, ...headers })
      .send({ model: 'openai-proxy.gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], ...body });
  const sentMessages = () => fake.chatCalls().at(-1)!.body.messages as Array<{ content: string }>;
  const records = async (userId: string) =>
    (await request(runtime.app).get(`/usage?user=${userId}`).set(runtime.auth).expect(200)).body.records;

  it('an OpenAI client (user as a string): inlets run before the pipe, the usage line arrives before [DONE], one record', async () => {
    const response = await chat({ user: 'u-direct' }).expect(200);
    expect(sentMessages()[0]!.content).toBe('marker-inlet');
    const events = sseData(response.text);
    expect(events.at(-1)).toBe('[DONE]');
    const last = JSON.parse(events.at(-2)!);
    expect(last.choices[0].delta.content).toMatch(/^\n\n\*12 in · 5 out/);
    expect(sseContent(response.text)).toMatch(/^Hello from upstream\n\n\*12 in · 5 out/);
    expect(await records('u-direct')).toHaveLength(1);
  });

  it('non-stream direct call: the usage line is appended to the JSON reply', async () => {
    const response = await chat({ user: 'u-direct-json', stream: false }).expect(200);
    expect(response.body.choices[0].message.content).toMatch(/^Hello from upstream\n\n\*12 in · 5 out/);
    expect(await records('u-direct-json')).toHaveLength(1);
  });

  it('a user id header names a direct caller', async () => {
    await chat({}, { 'X-OpenWebUI-User-Id': 'u-header' }).expect(200);
    expect(await records('u-header')).toHaveLength(1);
  });

  it("Open WebUI's call (user object) runs no filters: no marker, no usage line; the proxy still records", async () => {
    const response = await chat({ user: { id: 'u-owui', name: 'O', email: 'o@example.com', role: 'user' } }).expect(
      200,
    );
    expect(sentMessages().map((message) => message.content)).toEqual(['Say hello']);
    expect(sseContent(response.text)).toBe('Hello from upstream');
    // The proxy records after [DONE] went out.
    expect(await waitFor(() => records('u-owui'), { until: (list) => list.length > 0 })).toHaveLength(1);
  });

  it('X-Eunoe-Filters: skip turns the chain off for a request', async () => {
    await chat({ user: 'u-skip' }, { 'X-Eunoe-Filters': 'skip' }).expect(200);
    expect(sentMessages()[0]!.content).toBe('Say hello');
  });

  it("a pipe's own inlet runs last and its outlet first, for a direct caller only", async () => {
    const direct = await chat({ model: 'hooked', user: 'u-hooked' }).expect(200);
    // Inlet order: the marker filter (priority 10), then the pipe's inlet, which sees the marker's message.
    const reply = 'marker-inlet | Say hello | pipe-inlet saw marker-inlet';
    // Outlet order: the pipe's outlet marks the reply before the accounting outlet appends its usage line.
    const marked = `${reply} [pipe-outlet]`;
    const text = sseContent(direct.text);
    expect(text.startsWith(`${marked}\n\n`)).toBe(true);
    // The rest is the accounting outlet's usage line (estimated: this pipe reports no usage).
    expect(text.slice(marked.length)).toMatch(/^\n\n\*~\d+ in · ~\d+ out/);
    const json = await chat({ model: 'hooked', user: 'u-hooked', stream: false }).expect(200);
    expect(json.body.choices[0].message.content.startsWith(`${marked}\n\n`)).toBe(true);
    // Open WebUI calls the pipe model's hooks itself (/hooked/filter/inlet): Eunoe does not run them again.
    const owui = await chat({ model: 'hooked', user: { id: 'u-owui-hooked', role: 'user' } }).expect(200);
    expect(sseContent(owui.text)).toBe('Say hello');
  });

  it('a spend limit blocks before the upstream is called, with the human 429', async () => {
    await chat({ user: 'u-capped', model: 'openai-proxy.openai/gpt-4o-cost' }).expect(200);
    const calls = fake.chatCalls().length;
    const blocked = await chat({ user: 'u-capped', model: 'openai-proxy.openai/gpt-4o-cost' }).expect(429);
    expect(blocked.headers['content-type']).toMatch(/^application\/json/);
    expect(blocked.body.detail).toMatch(/daily/i);
    expect(fake.chatCalls().length).toBe(calls);
  });
});
