import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { scoringExcerpt, SCORING_TEXT_CHARS } from '../../src/domain/engine/conversation/message-text.js';
import { countMessageTokens, loadEncoder, planContext } from '../../src/domain/engine/index.js';
import { EXACT_COUNT_CHARS } from '../../src/domain/engine/tokens/long-text-estimate.js';

const o200k = getEncoding('o200k_base');
const counter = loadEncoder('o200k_base');
const fill = (text: string, length: number) => text.repeat(Math.ceil(length / text.length)).slice(0, length);
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const code = readFileSync(new URL('../../src/domain/engine/weighting/keyword-relevance.ts', import.meta.url), 'utf8');

describe('token counts of very long texts', () => {
  it.each([
    ['prose', () => fill(readme, 3 * EXACT_COUNT_CHARS)],
    ['code', () => fill(code, 3 * EXACT_COUNT_CHARS)],
    ['base64', () => randomBytes(2 * EXACT_COUNT_CHARS).toString('base64')],
    ['prose then base64', () => readme.slice(0, 100_000) + randomBytes(150_000).toString('base64')],
  ])('%s over the exact limit: estimated at or above the exact count, within 15 %%', (_name, make) => {
    const text = make();
    expect(text.length).toBeGreaterThan(EXACT_COUNT_CHARS);
    const exact = o200k.encode(text, [], []).length;
    const estimate = counter.count(text);
    expect(estimate).toBeGreaterThanOrEqual(exact);
    expect(estimate).toBeLessThanOrEqual(exact * 1.15);
  });

  it('a text at the limit is still counted exactly', () => {
    const text = fill(readme, EXACT_COUNT_CHARS);
    expect(counter.count(text)).toBe(o200k.encode(text, [], []).length);
  });

  it('a long run of letters without spaces (one piece) is merged in runs: at most one token more per 256 bytes', () => {
    const run = Array.from({ length: 600 }, (_, index) => String.fromCharCode(0x4e00 + ((index * 7919) % 20000))).join(
      '',
    );
    const exact = o200k.encode(run, [], []).length;
    const counted = counter.count(run);
    expect(counted).toBeGreaterThanOrEqual(exact);
    expect(counted).toBeLessThanOrEqual(exact + Math.ceil((run.length * 3) / 256));
    // A megabyte of it is estimated (it used to be merged as one piece, in time growing with its square).
    const huge = run.repeat(1700);
    expect(counter.count(huge)).toBeGreaterThanOrEqual(Math.floor(huge.length / run.length) * exact);
  });
});

describe('scoring text of a very long message', () => {
  it('is its start and its end, at most SCORING_TEXT_CHARS', () => {
    const text = `question start ${'x '.repeat(1_000_000)}question end`;
    const excerpt = scoringExcerpt(text);
    expect(excerpt.length).toBeLessThanOrEqual(SCORING_TEXT_CHARS);
    expect(excerpt.startsWith('question start')).toBe(true);
    expect(excerpt.endsWith('question end')).toBe(true);
    expect(scoringExcerpt('short')).toBe('short');
  });

  it('a huge old message is scored by its start and end, and dropped when it does not fit the budget', () => {
    const huge = `The zebra migration notes. ${fill('lorem ipsum dolor sit amet ', 5_000_000)} End of zebra notes.`;
    const messages = [
      { role: 'user', content: huge },
      { role: 'assistant', content: 'Noted the zebra migration.' },
      ...Array.from({ length: 6 }, (_, index) => [
        { role: 'user', content: `Unrelated question ${index} about cooking pasta?` },
        { role: 'assistant', content: `Boil water ${index}.` },
      ]).flat(),
      { role: 'user', content: 'What did the zebra migration notes say?' },
    ];
    const { plan, messages: sent } = planContext({ messages, options: { maxTokens: 4000, recent: 2 } });
    expect(plan.entries[0]!.tokens).toBeGreaterThan(500_000);
    expect(plan.entries[0]!.disposition).toBe('drop');
    expect(plan.tokensAfter).toBeLessThanOrEqual(4000);
    expect(sent).not.toContain(messages[0]);
    // The reply about the zebra notes outranks the cooking answers (the question's words are in the huge message's start).
    expect(plan.entries[1]!.weight).toBeGreaterThan(plan.entries[3]!.weight);
  });
});

describe('a message of many long text parts', () => {
  it('is counted like one long text: estimated, at or above the exact sum of its parts, within 15 %', () => {
    const parts = Array.from({ length: 40 }, (_, index) => ({
      type: 'text',
      text: `${index} ${readme.slice(index * 1000, index * 1000 + 30_000)}`,
    }));
    const exact = parts.reduce((sum, part) => sum + o200k.encode(part.text, [], []).length, 0);
    const counted = countMessageTokens({ role: 'user', content: parts }, counter);
    expect(counted).toBeGreaterThanOrEqual(exact);
    expect(counted).toBeLessThanOrEqual(exact * 1.15);
  });
});
