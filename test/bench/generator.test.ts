import { describe, expect, it } from 'vitest';
import { generateConversation, questionRequest } from '../../bench/lib/conversation-generator.js';

describe('generateConversation', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const first = generateConversation({ seed: 42 });
    const again = generateConversation({ seed: 42 });
    const other = generateConversation({ seed: 43 });
    expect(again).toEqual(first);
    expect(other.messages).not.toEqual(first.messages);
  });

  it('builds long multi-session conversations that start with the system prompt and alternate user/assistant', () => {
    const { messages } = generateConversation({ seed: 1 });
    expect(messages.length).toBeGreaterThan(200);
    expect(messages[0]?.role).toBe('system');
    messages.slice(1).forEach((message, offset) => expect(message.role).toBe(offset % 2 === 0 ? 'user' : 'assistant'));
  });

  it('plants evidence turns that contain the facts the questions ask about', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const conversation = generateConversation({ seed });
      expect(conversation.questions.length).toBeGreaterThanOrEqual(6);
      for (const question of conversation.questions) {
        expect(question.evidence.length).toBeGreaterThan(0);
        for (const ref of question.evidence) {
          expect(ref.index).toBeLessThan(question.askAt);
          expect(conversation.messages[ref.index]?.role).toBe(question.kind === 'assistant' ? 'assistant' : 'user');
          expect(conversation.messages[ref.index]?.content).toContain(ref.contains);
        }
        // The question never gives the answer away (for temporal questions the answer is the date).
        const answers = question.kind === 'temporal' ? question.evidence.slice(0, 1) : question.evidence;
        for (const ref of answers) expect(question.text).not.toContain(ref.contains);
      }
    }
  });

  it('asks temporal questions whose evidence includes the dated session opener, and multi-session questions across sessions', () => {
    const kinds = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5]) {
      const conversation = generateConversation({ seed });
      const openers = conversation.messages
        .map((message, index) => ({ message, index }))
        .filter(
          ({ message }) =>
            message.role === 'user' &&
            /\b\d{4}\b/.test(message.content) &&
            /(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)/.test(message.content),
        )
        .map(({ index }) => index);
      for (const question of conversation.questions) {
        kinds.add(question.kind);
        if (question.kind === 'temporal') expect(openers).toContain(question.evidence[0]?.index);
        if (question.kind === 'multi-session') {
          const [first, second] = question.evidence;
          const between = openers.filter((index) => index > (first?.index ?? 0) && index < (second?.index ?? 0));
          expect(between.length).toBeGreaterThan(0);
        }
      }
    }
    expect([...kinds].sort()).toEqual(['assistant', 'multi-session', 'paraphrase', 'single', 'temporal']);
  });

  it('phrases questions so they share some content words (none for paraphrases), but never all words, with their evidence', () => {
    const stop = new Set(
      'a an the i me my we our you your is are was were be am do did does to of in on at for with and or but what which who when where how s'.split(
        ' ',
      ),
    );
    const wordsOf = (text: string) =>
      new Set((text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((word) => !stop.has(word)));
    for (let seed = 1; seed <= 40; seed++) {
      const conversation = generateConversation({ seed });
      for (const question of conversation.questions) {
        const asked = wordsOf(question.text);
        const evidence = new Set(
          question.evidence.flatMap((ref) => [...wordsOf(conversation.messages[ref.index]!.content)]),
        );
        const shared = [...asked].filter((word) => evidence.has(word));
        if (question.kind === 'paraphrase') expect(shared, question.text).toEqual([]);
        else expect(shared.length, question.text).toBeGreaterThan(0);
        expect(shared.length, question.text).toBeLessThan(asked.size);
      }
    }
  });

  it('builds a request that ends with the question as the last user message', () => {
    const conversation = generateConversation({ seed: 9 });
    const question = conversation.questions[0]!;
    const request = questionRequest(conversation, question);
    expect(request).toHaveLength(question.askAt + 1);
    expect(request[request.length - 1]).toEqual({ role: 'user', content: question.text });
  });
});
