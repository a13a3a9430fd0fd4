import { describe, expect, it } from 'vitest';
import {
  countMessageTokens,
  loadEncoder,
  LruTokenCache,
  messageIds,
  planContext,
  validateMessageOrder,
} from '../../src/domain/engine/index.js';
import { EVIDENCE, syslogToolChat } from '../helpers/syslog.js';

/**
 * A trimmed copy is the same message as its original: it keeps the original's id (pins, `!weight`, the previous
 * prompt's sequence and the run inspector name it by that id), the same trim gives the byte-identical copy on the
 * next turn, and the shared token cache keeps the original's count under that id.
 */

const QUESTION = 'Which controller overheated, and what was its error code?';

const chat = (): Record<string, unknown>[] => syslogToolChat();

const tool = (messages: readonly unknown[]) =>
  messages.find((message) => (message as { role: string }).role === 'tool') as { content: string };

describe('trimmed copies keep their ids', () => {
  it('the plan, the sequence sent and the marks name the trimmed copy by its original id', () => {
    const messages = chat();
    const ids = messageIds(messages);
    const {
      messages: sent,
      plan,
      sequence,
    } = planContext({
      messages,
      model: 'gpt-4o',
      options: { maxTokens: 2000 },
      marks: { [ids[3]!]: { pinned: true } },
    });
    expect(tool(sent)).not.toBe(messages[3]);
    expect(tool(sent).content).toContain(EVIDENCE);
    expect(plan.entries[3]!.trimmed).toBeDefined();
    expect(plan.entries.map((entry) => entry.id)).toEqual(ids);
    expect(sequence).toContain(ids[3]);
    // The pin set on the original holds for the copy (a call and its result share one fate).
    expect(plan.entries[3]!.disposition).toBe('pinned');
    expect(plan.entries[2]!.disposition).not.toBe('drop');
    expect(validateMessageOrder(sent)).toEqual([]);
  });

  it('a `!weight` on the original weighs the copy', () => {
    const messages = chat();
    const ids = messageIds(messages);
    const plain = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    const weighted = planContext({
      messages,
      model: 'gpt-4o',
      options: { maxTokens: 2000, messageWeights: { [ids[3]!]: 3 } },
    });
    expect(weighted.plan.entries[3]!.trimmed).toBeDefined();
    expect(weighted.plan.entries[3]!.weight).toBeCloseTo(3 * plain.plan.entries[3]!.weight, 10);
  });

  it('the same trim on the next turn is the byte-identical copy, and the prompt cache sees the same prefix', () => {
    const cache = new LruTokenCache(1000);
    const first = planContext({
      messages: chat(),
      model: 'gpt-4o',
      tokenCache: cache,
      options: { maxTokens: 4000, algorithm: 'cache_stable' },
    });
    const next = [
      ...chat(),
      { role: 'assistant', content: 'Controller nvme0n1 overheated; the error code was E4217.' },
      { role: 'user', content: QUESTION },
    ];
    const second = planContext({
      messages: next,
      model: 'gpt-4o',
      tokenCache: cache,
      previousSequence: first.sequence,
      options: { maxTokens: 4000, algorithm: 'cache_stable' },
    });
    expect(second.plan.entries[3]!.trimmed).toBeDefined();
    expect(JSON.stringify(tool(second.messages))).toBe(JSON.stringify(tool(first.messages)));
    expect(second.plan.entries[3]!.id).toBe(first.plan.entries[3]!.id);
    // Everything sent last time up to the trimmed result and its reply repeats, so a provider's cache can read it.
    const upToResult = first.plan.entries.slice(0, 5).reduce((sum, entry) => sum + entry.tokens, 0);
    expect(second.plan.budget.cachedPrefixTokens).toBeGreaterThanOrEqual(upToResult);
  });

  it("the shared token cache keeps the original's count under the id, so an untrimmed plan counts it whole", () => {
    const messages = chat();
    const ids = messageIds(messages);
    const cache = new LruTokenCache(1000);
    const trimmed = planContext({ messages, model: 'gpt-4o', tokenCache: cache, options: { maxTokens: 2000 } });
    const whole = countMessageTokens(messages[3], loadEncoder('o200k_base'));
    expect(trimmed.plan.entries[3]!.tokens).toBeLessThan(whole / 10);
    expect(cache.get(ids[3]!)).toBe(whole);
    const full = planContext({ messages, model: 'gpt-4o', tokenCache: cache, options: { maxTokens: 0 } });
    expect(full.plan.entries[3]!.tokens).toBe(whole);
    expect(tool(full.messages)).toBe(messages[3]);
  });
});
