import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messageIds, planContext } from '../../src/domain/engine/index.js';
import { EmbeddingScorer } from '../../src/features/context/compress/scoring/embedding-scorer.js';
import { externalScores } from '../../src/features/context/compress/scoring/external-scores.js';
import { LlmAnalyzer } from '../../src/features/context/compress/scoring/llm-analyzer.js';
import { LlmClient } from '../../src/domain/llm/llm-client.js';
import {
  chatReply,
  embeddingReply,
  startLoopback,
  type LoopbackServer,
  type Script,
} from '../llm/helpers/loopback-openai.js';
import { tempStore } from './helpers/temp-store.js';

const chat = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'my cat whiskers loves salmon treats' },
  { role: 'assistant', content: 'cats often love salmon treats' },
  { role: 'user', content: 'the database migration failed with a lock timeout' },
  { role: 'assistant', content: 'retry the migration after releasing the database lock' },
  { role: 'user', content: 'which treats does my cat whiskers love?' },
];
const ids = messageIds(chat);
const query = chat.at(-1)!.content;

let server: LoopbackServer;
let store: Awaited<ReturnType<typeof tempStore>>;
beforeAll(async () => {
  server = await startLoopback();
});
afterAll(async () => server.close());
beforeEach(async () => {
  store = await tempStore();
  server.requests.length = 0;
});
afterEach(async () => store.dispose());

const client = () =>
  new LlmClient({ baseUrl: server.url, model: 'mini', embeddingModel: 'embed', retries: 0, timeoutMs: 2000 });
const labels =
  (answer: string): Script =>
  (request) =>
    request.path.endsWith('/embeddings') ? embeddingReply(request.body.input) : chatReply(answer);

describe('EmbeddingScorer', () => {
  it('scores by (cos+1)/2 normalised to the best, with system messages at 1, and embeds each message once', async () => {
    server.script = labels('');
    const scorer = new EmbeddingScorer(client(), store.state, 60_000);
    const scores = await scorer.score({ messages: chat, ids, query });
    expect(scores[ids[0]!]).toBe(1);
    expect(scores[ids[1]!]).toBeGreaterThan(scores[ids[3]!]!);
    expect(scores[ids[2]!]).toBeGreaterThan(scores[ids[4]!]!);
    expect(Math.max(...ids.slice(1).map((id) => scores[id]!))).toBeCloseTo(1, 10);
    for (const id of ids) expect(scores[id]).toBeGreaterThanOrEqual(0.05);
    expect(server.embeddingCalls()).toBe(1);
    const again = await new EmbeddingScorer(client(), store.state, 60_000).score({
      messages: [...chat, { role: 'assistant', content: 'salmon' }],
      ids: [...ids, 'new'],
      query,
    });
    expect(server.embeddingCalls()).toBe(2);
    expect(server.requests.at(-1)!.body.input).toEqual(['salmon']);
    expect(again[ids[1]!]).toBeCloseTo(scores[ids[1]!]!, 10);
  });
});

describe('LlmAnalyzer', () => {
  it.each([
    ['a JSON array', '["K","H","D","D"]'],
    ['index: label lines', '1: Keep\n2: Helpful\n3: Drop\n4: Drop'],
    ['a bare label sequence', 'K H D D'],
  ])('reads %s into weights 1 / 0.75 / 0.05, system 1', async (_name, answer) => {
    server.script = labels(answer);
    const scores = await new LlmAnalyzer(client(), store.state, 60_000).score({ messages: chat, ids, query });
    expect([ids[0], ids[1], ids[2], ids[3], ids[4]].map((id) => scores[id!])).toEqual([1, 1, 0.75, 0.05, 0.05]);
    const prompt = server.requests[0]!.body.messages[1].content as string;
    expect(prompt).toContain(`Current question: ${query}`);
    expect(prompt).toContain('4. [ASSISTANT] retry the migration');
    expect(prompt).not.toContain('5. ');
  });

  it('labels only the last N messages, cuts each snippet, and caches by query and window', async () => {
    server.script = labels('["M","K"]');
    const analyzer = new LlmAnalyzer(client(), store.state, 60_000, 2, 10);
    const scores = await analyzer.score({ messages: chat, ids, query });
    expect(scores[ids[1]!]).toBe(0.5);
    expect(scores[ids[3]!]).toBe(0.5);
    expect(scores[ids[4]!]).toBe(1);
    expect(server.requests[0]!.body.messages[1].content).toContain('1. [USER] the databa\n');
    await analyzer.score({ messages: chat, ids, query });
    expect(server.chatCalls()).toBe(1);
    await analyzer.score({ messages: chat, ids, query: 'something else?' });
    expect(server.chatCalls()).toBe(2);
  });

  it('rejects an answer without enough labels (and caches nothing)', async () => {
    server.script = labels('I cannot help with that.');
    await expect(new LlmAnalyzer(client(), store.state, 60_000).score({ messages: chat, ids, query })).rejects.toThrow(
      /labels for 0 of 4/,
    );
    server.script = labels('["K","K","K","K"]');
    await new LlmAnalyzer(client(), store.state, 60_000).score({ messages: chat, ids, query });
    expect(server.chatCalls()).toBe(2);
  });
});

describe('cached scores of another shape read as a miss', () => {
  const corrupt = async (prefix: string, value: unknown) => {
    const keys = await store.state.keys(prefix);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) await store.state.set(key, value);
  };

  it.each([
    ['strings', ['a', 'b']],
    ['an object', { 0: 1 }],
  ])('embeddings: %s are embedded again', async (_name, bad) => {
    server.script = labels('');
    const scores = await new EmbeddingScorer(client(), store.state, 60_000).score({ messages: chat, ids, query });
    await corrupt('emb:', bad);
    const again = await new EmbeddingScorer(client(), store.state, 60_000).score({ messages: chat, ids, query });
    expect(server.embeddingCalls()).toBe(2);
    expect(again).toEqual(scores);
  });

  it.each([
    ['unknown labels', ['X', 'Y', 'Z', 'W']],
    ['a string', 'KHDD'],
  ])('labels: %s are asked for again', async (_name, bad) => {
    server.script = labels('["K","H","D","D"]');
    const scores = await new LlmAnalyzer(client(), store.state, 60_000).score({ messages: chat, ids, query });
    await corrupt('lab:', bad);
    const again = await new LlmAnalyzer(client(), store.state, 60_000).score({ messages: chat, ids, query });
    expect(server.chatCalls()).toBe(2);
    expect(again).toEqual(scores);
  });
});

describe('externalScores', () => {
  it('blends the scorers by share (70% embedding, 30% labels)', async () => {
    server.script = labels('["D","D","D","D"]');
    const embedding = new EmbeddingScorer(client(), store.state, 60_000);
    const analyzer = new LlmAnalyzer(client(), store.state, 60_000);
    const alone = await embedding.score({ messages: chat, ids, query });
    const blended = await externalScores({
      scorers: [
        { scorer: embedding, share: 0.7 },
        { scorer: analyzer, share: 0.3 },
      ],
      messages: chat,
      ids,
      query,
      timeoutMs: 2000,
    });
    expect(blended.used).toEqual(['embedding', 'llm']);
    expect(blended.scores![ids[1]!]).toBeCloseTo(0.7 * alone[ids[1]!]! + 0.3 * 0.05, 10);
  });

  it.each<[string, Script]>([
    ['a 500', () => ({ status: 500, json: {} })],
    ['a slow answer', () => ({ ...chatReply('["K","K","K","K"]'), delayMs: 1500 })],
    ['garbage', () => ({ text: 'not json' })],
  ])('falls back to keyword scoring (no external scores) on %s', async (_name, script) => {
    server.script = script;
    const result = await externalScores({
      scorers: [{ scorer: new LlmAnalyzer(client(), store.state, 60_000), share: 1 }],
      messages: chat,
      ids,
      query,
      timeoutMs: 200,
    });
    expect(result.scores).toBeUndefined();
    expect(result.failed).toHaveLength(1);
    const plan = planContext({
      messages: chat,
      options: { maxTokens: 60, weighting: 'composite' },
      externalScores: result.scores,
    }).plan;
    const keyword = planContext({ messages: chat, options: { maxTokens: 60, weighting: 'smart' } }).plan;
    expect(plan.entries.map((entry) => entry.disposition)).toEqual(keyword.entries.map((entry) => entry.disposition));
  });

  it('external scores change what the engine keeps under composite weighting', async () => {
    server.script = labels('["D","D","K","K"]');
    const result = await externalScores({
      scorers: [{ scorer: new LlmAnalyzer(client(), store.state, 60_000), share: 1 }],
      messages: chat,
      ids,
      query,
      timeoutMs: 2000,
    });
    const options = { maxTokens: 50, recent: 1, recencyFactor: 0, weighting: 'composite' as const, externalWeight: 1 };
    const kept = (scores?: Record<string, number>) =>
      planContext({ messages: chat, options, externalScores: scores })
        .plan.entries.filter((entry) => entry.disposition === 'keep')
        .map((entry) => entry.index);
    expect(kept(result.scores)).toEqual([0, 3, 4, 5]);
    expect(kept(undefined)).toEqual([0, 1, 2, 5]);
  });
});
