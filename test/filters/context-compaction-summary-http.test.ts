import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEncoder, validateMessageOrder } from '../../src/domain/engine/index.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { contextInlet, functionInlet as owuiInlet } from './helpers/context-http.js';
import { chatReply, embeddingReply, startLoopback, type LoopbackServer } from '../llm/helpers/loopback-openai.js';
import { promptTokens, type Message } from './helpers/flag-chats.js';

/**
 * A chat Open WebUI compacted itself (Context Compaction, 0.10+, off by default), through the real context filter:
 * the Function's route (Eunoe's Open WebUI Function, which carries the status line back) and the Pipelines routes.
 *
 * The history is compacted as Open WebUI's source does it:
 * - open-webui/open-webui backend/open_webui/utils/context_compaction.py (stored at commit
 *   050b090f7d0d941e1c0df625e919ccdbf5585f11): the first system message is set aside; `_find_compaction_boundary`
 *   keeps `max(2, len * retained_messages_percentage // 100)` messages (default 20 %, clamped 10–50), moved past tool
 *   results, at most `len - 2`; `compact_messages_for_request` returns the system message and the kept messages.
 * - backend/open_webui/utils/middleware.py `process_chat_payload` (0.10+), before the Pipelines and Function inlets:
 *   `add_or_update_system_message(f'[CONVERSATION SUMMARY]\n{context_summary}', form_data['messages'], append=True)`;
 *   backend/open_webui/utils/misc.py appends `'\n' + content` to a first system message, else inserts one first.
 */
function compactLikeOpenWebUI(messages: Message[], summary: string, retainedPercentage = 20): Message[] {
  const system = messages[0]?.role === 'system' ? [messages[0]] : [];
  const body = system.length ? messages.slice(1) : messages;
  const keep = Math.max(2, Math.floor((body.length * retainedPercentage) / 100));
  let split = Math.max(1, body.length - keep);
  while (split < body.length - 1 && (body[split]!.role === 'tool' || body[split - 1]!.tool_calls)) split += 1;
  split = Math.min(split, body.length - 2);
  const kept: Message[] = [...system.map((message) => ({ ...message })), ...body.slice(split)];
  const content = `[CONVERSATION SUMMARY]\n${summary}`;
  if (kept[0]?.role === 'system') kept[0] = { ...kept[0], content: `${kept[0].content}\n${content}` };
  else kept.unshift({ role: 'system', content });
  return kept;
}

const SYSTEM: Message = { role: 'system', content: 'You are a helpful cooking assistant.' };
const SUMMARY = [
  '### Subject',
  'Weekly meal planning for a family of four; two children, one is allergic to peanuts.',
  '### Established facts',
  '- Budget 120 EUR a week; cooking time at most 40 minutes on weekdays.',
  '- Favourite dishes so far: lentil dahl, baked salmon with potatoes, vegetable lasagne.',
  '### Open questions and next steps',
  '- A peanut-free satay alternative; a shopping list for next week.',
].join('\n');
const BLOCK = `[CONVERSATION SUMMARY]\n${SUMMARY}`;
const blockTokens = loadEncoder('o200k_base').count(BLOCK);
const fmt = (value: number) => value.toLocaleString('en-US');

/** Thirty exchanges with long answers, then the current question. */
function chat(current = 'Can you suggest a peanut-free satay sauce?'): Message[] {
  const messages: Message[] = [SYSTEM];
  for (let turn = 1; turn <= 30; turn++) {
    messages.push({ role: 'user', content: `Day ${turn}: what could we cook tonight with what is left?` });
    messages.push({
      role: 'assistant',
      content: `For day ${turn}, here are three options:\n${[1, 2, 3]
        .map((n) => `${n}. Recipe ${turn}.${n}: ingredients, steps, timing and what to prepare the evening before.`)
        .join('\n')}`,
    });
  }
  messages.push({ role: 'user', content: current });
  return messages;
}

describe("context filter: a history Open WebUI compacted keeps Open WebUI's summary", () => {
  let runtime: TestRuntime;
  let server: LoopbackServer;
  let valves: Record<string, string> = {};

  const setValves = async (values: Record<string, string | number | boolean>) => {
    valves = {
      ...valves,
      ...Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)])),
    };
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send(valves).expect(200);
  };
  /** The Function's inlet: the messages sent and the status line. */
  const functionInlet = (messages: Message[], chatId: string) => owuiInlet(runtime, messages, chatId, 'u-owui');
  const user = { id: 'u-owui-note', email: 'n@example.com', name: 'N', role: 'user' };
  const inlet = (messages: Message[], chatId: string) => contextInlet(runtime, messages, chatId, user);
  const outlet = async (history: Message[], chatId: string, reply: string) => {
    const body = { model: 'gpt-4o', chat_id: chatId, messages: [...history, { role: 'assistant', content: reply }] };
    const response = await request(runtime.app)
      .post('/context/filter/outlet')
      .set(runtime.auth)
      .send({ body, user })
      .expect(200);
    return (response.body.messages as Message[]).at(-1)!.content as string;
  };

  beforeAll(async () => {
    server = await startLoopback((seen) =>
      seen.path.endsWith('/embeddings')
        ? embeddingReply(seen.body.input)
        : chatReply('The user asked for dinner ideas on several days; the assistant gave three recipes each time.'),
    );
    runtime = await createTestRuntime({ filters: ['context.ts'] });
    await setValves({ max_tokens: 600, recent: 2, algorithm: 'recency', weighting: 'keyword', summary_base_url: '' });
  });
  afterAll(async () => {
    await runtime.dispose();
    await server.close();
  });

  it('the status line says "Open WebUI\'s summary kept (N tokens)"; the summary is sent first and whole at every budget', async () => {
    const compacted = compactLikeOpenWebUI(chat(), SUMMARY);
    expect(compacted[0]!.content).toBe(`${SYSTEM.content}\n${BLOCK}`);
    expect(compacted).toHaveLength(1 + 12); // the system message and the newest 20 % of 61 messages
    const summaryMessageTokens = promptTokens([compacted[0]!]);
    for (const [n, maxTokens] of [50, 300, 600, 1_500, 8_000].entries()) {
      await setValves({ max_tokens: maxTokens });
      const { sent, status } = await functionInlet(compacted, `owui-budget-${n}`);
      expect(sent[0], `${maxTokens}`).toEqual(compacted[0]);
      expect(sent.at(-1)).toEqual(compacted.at(-1));
      expect(validateMessageOrder(sent)).toEqual([]);
      expect(status, `${maxTokens}`).toMatch(
        new RegExp(` · Open WebUI's summary kept \\(${fmt(blockTokens)} tokens\\)$`),
      );
      // Counted: the tokens the status line reports as sent are those of the messages sent, the summary's included.
      const after = /^context: (?:[\d,]+ → )?([\d,]+) tokens/.exec(status)![1]!;
      expect(Number(after.replace(/,/g, ''))).toBe(promptTokens(sent));
      // Within the budget wherever it holds the summary's message, the current turn and the two recent messages.
      if (maxTokens >= 600) expect(promptTokens(sent), `${maxTokens}`).toBeLessThanOrEqual(maxTokens);
      else expect(promptTokens(sent)).toBeGreaterThan(summaryMessageTokens);
    }
    // The same chat compacted without a system prompt: the summary is a system message of its own.
    await setValves({ max_tokens: 600 });
    const alone = compactLikeOpenWebUI(chat().slice(1), SUMMARY);
    expect(alone[0]).toEqual({ role: 'system', content: BLOCK });
    const { sent, status } = await functionInlet(alone, 'owui-alone');
    expect(sent[0]).toEqual(alone[0]);
    expect(status).toContain(`Open WebUI's summary kept (${fmt(blockTokens)} tokens)`);
    // A chat Open WebUI did not compact: the status line it always had.
    const plain = await functionInlet(chat(), 'owui-plain');
    expect(plain.status).toMatch(/^context: [\d,]+ → [\d,]+ tokens · \d+ of 61 messages left out$/);
  });

  it('the note under the reply says so too, and is gone from the next turn’s history', async () => {
    await setValves({ max_tokens: 600, show_context_note: true });
    const history = compactLikeOpenWebUI(chat(), SUMMARY);
    await inlet(history, 'owui-note');
    const reply = await outlet(history, 'owui-note', 'Try a sunflower-seed butter satay.');
    const line = reply.split('\n').at(-1)!;
    expect(line).toMatch(
      new RegExp(
        `^context: [\\d,]+ → [\\d,]+ tokens · \\d+ of 12 messages left out · Open WebUI's summary kept \\(${fmt(blockTokens)} tokens\\)$`,
      ),
    );
    const next = [...history, { role: 'assistant', content: reply }, { role: 'user', content: 'And a dessert?' }];
    const sent = await inlet(next, 'owui-note');
    const answered = sent.find((message) => message.role === 'assistant' && message.content?.startsWith('Try a'));
    expect(answered?.content).toBe('Try a sunflower-seed butter satay.');
    expect(sent[0]).toEqual(history[0]);
    await setValves({ show_context_note: false });
  });

  it("with Eunoe's summarizer: Open WebUI's summary is never sent to be summarized again, and both are sent", async () => {
    await setValves({
      max_tokens: 600,
      summary_base_url: server.url,
      summary_model: 'mini',
      summary_min_budget: 0,
      ahead_of_time: false,
    });
    try {
      const compacted = compactLikeOpenWebUI(chat(), SUMMARY);
      const first = server.requests.length;
      const { sent, status } = await functionInlet(compacted, 'owui-eunoe-summary');
      const calls = server.requests.slice(first);
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) expect(JSON.stringify(call.body)).not.toContain('[CONVERSATION SUMMARY]');
      expect(sent[0]).toEqual(compacted[0]);
      expect(sent.some((message) => message.content?.startsWith('[Earlier in this conversation'))).toBe(true);
      expect(status).toMatch(/ · \d+ summarized · Open WebUI's summary kept \([\d,]+ tokens\)$/);
      expect(promptTokens(sent)).toBeLessThanOrEqual(600);
    } finally {
      await setValves({ summary_base_url: '' });
    }
  });
});
