import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';

/**
 * The `cache_control` valve of the `openai-proxy`, end to end: Open WebUI's turn (the context filter's
 * Pipelines inlet with a cache-ordered algorithm, then the pipe call with the body the inlet returned) against a
 * loopback OpenAI-format upstream, which records the exact JSON it receives.
 */
const user = { id: 'u-cache', email: 'c@example.com', name: 'C', role: 'user' };
const ANTHROPIC = 'anthropic/claude-sonnet-4';
const CLAUDE = 'claude-3-5-haiku-latest';
const OTHER = 'gpt-4o-mini';

/** A chat the context filter must trim under 400 tokens; `question` last. */
function history(question: string): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: 'You keep a garden diary.' }];
  for (let turn = 0; turn < 12; turn++) {
    messages.push({ role: 'user', content: `Question ${turn}: ${'about the garden and its plants '.repeat(6)}` });
    messages.push({ role: 'assistant', content: `Answer ${turn}: ${'the plants need water and light '.repeat(6)}` });
  }
  messages.push({ role: 'user', content: question });
  return messages;
}

type Sent = { role: string; content: unknown };
const marks = (messages: readonly Sent[]) =>
  messages.flatMap((message, index) =>
    Array.isArray(message.content)
      ? (message.content as Array<Record<string, unknown>>)
          .filter((part) => 'cache_control' in part)
          .map((part) => ({ index, part }))
      : [],
  );

describe('openai-proxy cache_control breakpoints against a loopback upstream', () => {
  let runtime: TestRuntime;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  const proxyValves = (cache_control: boolean) =>
    request(runtime.app)
      .post('/openai-proxy/valves/update')
      .set(runtime.auth)
      .send({ base_url: fake.url, api_key: 'sk-upstream', models: [ANTHROPIC, CLAUDE, OTHER].join(','), cache_control })
      .expect(200);
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    runtime = await createTestRuntime({ filters: ['openai-proxy.ts', 'context.ts'] });
    await proxyValves(true);
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ max_tokens: 400, algorithm: 'cache_stable' })
      .expect(200);
  });
  afterAll(async () => {
    await runtime.dispose();
    await fake.close();
  });

  /** The inlet's body for `model`, then the pipe call with it; returns that body and what the upstream received. */
  async function turn(model: string, chatId: string, question = 'What do the plants need?') {
    const inlet = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({
        user,
        body: { model: `openai-proxy.${model}`, messages: history(question), metadata: { chat_id: chatId } },
      })
      .expect(200);
    const body = inlet.body as { messages: Sent[]; metadata: Record<string, unknown> };
    await request(runtime.app)
      .post('/chat/completions')
      .set(runtime.auth)
      .send({ ...body, model: `openai-proxy.${model}`, stream: false, user })
      .expect(200);
    return { inlet: body, sent: fake.chatCalls().at(-1)!.body as { messages: Sent[]; metadata?: unknown } };
  }

  it.each([ANTHROPIC, CLAUDE])(
    '%s: one ephemeral breakpoint on the last content part of the last stable message; the hint is not forwarded',
    async (model) => {
      const { inlet, sent } = await turn(model, `c-${model}`);
      const stable = inlet.metadata.eunoe_stable_prefix as number;
      expect(Number.isInteger(stable) && stable > 1).toBe(true);
      expect(stable).toBeLessThan(inlet.messages.length); // the question is after the stable prefix
      expect(marks(sent.messages)).toEqual([
        {
          index: stable - 1,
          part: { type: 'text', text: inlet.messages[stable - 1]!.content, cache_control: { type: 'ephemeral' } },
        },
      ]);
      expect(sent.messages[stable - 1]).toEqual({
        role: inlet.messages[stable - 1]!.role,
        content: [{ type: 'text', text: inlet.messages[stable - 1]!.content, cache_control: { type: 'ephemeral' } }],
      });
      // Every other message exactly as the inlet sent it.
      sent.messages.forEach((message, index) => {
        if (index !== stable - 1) expect(message).toEqual(inlet.messages[index]);
      });
      expect(JSON.stringify(sent)).not.toContain('eunoe_stable_prefix');
      expect(sent.metadata).toEqual({ chat_id: `c-${model}` });
    },
  );

  it('a model that is not Anthropic gets no cache_control, and the hint is not forwarded', async () => {
    const { inlet, sent } = await turn(OTHER, 'c-other');
    expect(inlet.metadata.eunoe_stable_prefix).toBeGreaterThan(1);
    expect(sent.messages).toEqual(inlet.messages);
    expect(JSON.stringify(sent)).not.toContain('cache_control');
    expect(JSON.stringify(sent)).not.toContain('eunoe_stable_prefix');
  });

  it('with the valve off (the default), Anthropic models get no cache_control either', async () => {
    await proxyValves(false);
    try {
      const { inlet, sent } = await turn(ANTHROPIC, 'c-off');
      expect(sent.messages).toEqual(inlet.messages);
      expect(JSON.stringify(sent)).not.toContain('cache_control');
    } finally {
      await proxyValves(true);
    }
  });

  it('a content that is already parts keeps them, with the mark on its last part; a bad hint is dropped', async () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'now?' },
    ];
    const send = (hint: unknown) =>
      request(runtime.app)
        .post('/chat/completions')
        .set(runtime.auth)
        .send({
          model: `openai-proxy.${ANTHROPIC}`,
          stream: false,
          user,
          messages,
          metadata: { eunoe_stable_prefix: hint },
        })
        .expect(200);
    await send(1);
    const sent = fake.chatCalls().at(-1)!.body as { messages: Sent[]; metadata?: unknown };
    expect(sent.messages[0]!.content).toEqual([
      { type: 'text', text: 'first' },
      { type: 'text', text: 'second', cache_control: { type: 'ephemeral' } },
    ]);
    expect(sent.messages.slice(1)).toEqual(messages.slice(1));
    expect(sent.metadata).toBeUndefined();
    await send('all');
    const bad = fake.chatCalls().at(-1)!.body as { messages: Sent[] };
    expect(bad.messages).toEqual(messages);
    expect(JSON.stringify(bad)).not.toContain('eunoe_stable_prefix');
  });
});
