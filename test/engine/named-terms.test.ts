import { describe, expect, it } from 'vitest';
import { parseConversation } from '../../src/domain/engine/conversation/parse-conversation.js';
import { defaultEngineOptions } from '../../src/domain/engine/index.js';
import { analyzeTerm } from '../../src/domain/engine/weighting/analyze-term.js';
import { KEYWORD_FLOOR, keywordWeighting } from '../../src/domain/engine/weighting/keyword-weighting.js';
import { namedTerms } from '../../src/domain/engine/weighting/query-terms.js';
import { assistant, user, type TestMessage } from './fixtures/conversations.js';

const term = (word: string) => analyzeTerm(word);

describe('names of a question', () => {
  it('are the capitalised words that do not start a sentence, stemmed like every term', () => {
    expect(namedTerms('What did Melanie paint after her trip to Paris?')).toEqual([term('melanie'), term('paris')]);
    expect(namedTerms('Thanks. Deploy the UserService again? Then call Bob')).toEqual([
      term('userservice'),
      term('bob'),
    ]);
  });

  it('a capital after a quote, a bracket, a list or markdown mark still starts a sentence', () => {
    for (const query of ['"Tell me more', '- Describe the plan', '(Explain it)', '**Summarize** this', '> Quote me'])
      expect(namedTerms(query), query).toEqual([]);
    expect(namedTerms('Thanks.\n\n- Describe what Melanie said')).toEqual([term('melanie')]);
    expect(namedTerms(`about${' '.repeat(12)}Melanie`)).toEqual([term('melanie')]);
  });

  it('leave out stop words and lower-case questions', () => {
    expect(namedTerms('What did I tell you about it?')).toEqual([]);
    expect(namedTerms('what did melanie paint?')).toEqual([]);
  });
});

/** Keyword weights of a chat whose last message is the question. */
function weights(messages: TestMessage[]): number[] {
  const conversation = parseConversation(messages);
  return Array.from(
    keywordWeighting.score({
      nodes: conversation.nodes,
      query: conversation.nodes[conversation.lastUserIndex]!.text,
      queryIndex: conversation.lastUserIndex,
      options: defaultEngineOptions(),
    }),
  );
}

describe('a message that mentions a name of the question', () => {
  // Two messages with the same words, far apart (no neighbour lends to the other), one of them about Melanie.
  const filler = (from: number) =>
    Array.from({ length: 24 }, (_, index) =>
      index % 2 ? assistant(`weather talk ${from + index}`) : user(`weather note ${from + index}`),
    );
  const chat = (question: string): TestMessage[] => [
    user('Melanie: I painted a lake at sunrise last weekend'),
    ...filler(0),
    assistant('Caroline: I painted a lake at sunrise last weekend'),
    ...filler(100),
    user(question),
  ];

  it('outranks the same words about someone else', () => {
    const scores = weights(chat('What did Melanie paint at sunrise?'));
    const melanie = scores[0]!;
    const caroline = scores[25]!;
    expect(melanie).toBe(1);
    expect(melanie - caroline).toBeGreaterThan(0.1);
    expect(caroline).toBeGreaterThan(KEYWORD_FLOOR);
  });

  it('scores like any other when the question names no one', () => {
    const scores = weights(chat('what was painted at sunrise?'));
    // Only the chat's edges set them apart (the first message has neighbours on one side only).
    expect(Math.abs(scores[0]! - scores[25]!)).toBeLessThan(0.05);
  });

  it('keeps every weight within [floor, 1]', () => {
    const scores = weights(chat('What did Melanie paint at sunrise?'));
    expect(scores.every((score) => score >= KEYWORD_FLOOR && score <= 1)).toBe(true);
  });
});
