import { describe, expect, it } from 'vitest';
import {
  type AlgorithmName,
  COMPACTION_SUMMARY_MARKER,
  countMessageTokens,
  loadEncoder,
  planContext,
  REPLY_PRIMING_TOKENS,
} from '../../src/domain/engine/index.js';
import { contextNoteOf, contextNoteSchema, formatContextNote } from '../../src/features/context/note/context-note.js';
import { stripContextNotes } from '../../src/domain/notes/context-note-line.js';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';

/**
 * Open WebUI's Context Compaction (0.10+, off by default), as its source does it:
 *
 * - open-webui/open-webui backend/open_webui/utils/context_compaction.py (stored at commit
 *   050b090f7d0d941e1c0df625e919ccdbf5585f11): `compact_messages_for_request` keeps the newest
 *   `retained_messages_percentage` (default 20, clamped 10–50, at least 2 messages, never splitting a tool call from
 *   its results) and returns them with the summary of the rest; once a checkpoint exists
 *   (`_apply_latest_summary_checkpoint`) every later turn starts at the checkpoint and carries the summary again.
 * - backend/open_webui/utils/middleware.py, `process_chat_payload` (0.10+, the copy with
 *   `from open_webui.utils.context_compaction import compact_messages_for_request`), before the Pipelines inlet:
 *   `add_or_update_system_message(f'[CONVERSATION SUMMARY]\n{context_summary}', form_data['messages'], append=True)`.
 * - backend/open_webui/utils/misc.py `add_or_update_system_message(content, messages, append)`: a first system message
 *   gets `f'{content_before}\n{content}'` (each text part of a parts list the same), otherwise
 *   `{'role': 'system', 'content': content}` is inserted first.
 */
const SUMMARY = [
  '### Subject',
  'Planning a two-week trip to Japan in April for the user and their partner (first visit).',
  '### Established facts',
  '- Budget: about 6,000 EUR for both, flights already booked Frankfurt–Tokyo Haneda, 3 April, return 17 April.',
  '- The partner is vegetarian; the user has a shellfish allergy.',
  '### Decisions and rationale',
  '- Tokyo (5 nights), Kyoto (5 nights), Osaka (3 nights); a 14-day JR Pass was rejected as not worth it for this route.',
  '### Open questions and next steps',
  '- Choose a ryokan in Kyoto with vegetarian kaiseki; compare Hakone as a side trip.',
].join('\n');
const BLOCK = `${COMPACTION_SUMMARY_MARKER}\n${SUMMARY}`;
const PROMPT = 'You are a helpful travel assistant. Answer in English.';

/** A long assistant answer, as assistant chats have them. */
const answer = (topic: string, n: number) =>
  `Here is what I found about ${topic} (${n}).\n\n` +
  Array.from(
    { length: 8 },
    (_, line) => `${line + 1}. ${topic} detail ${n}-${line}: opening hours, prices, how to get there and what to book.`,
  ).join('\n');
/** The retained 20 %: six exchanges after the checkpoint, then the current question. */
const recent = (): ChatMessage[] => {
  const messages: ChatMessage[] = [];
  const topics = ['Kyoto temples', 'Osaka food', 'Tokyo museums', 'Nara deer park', 'Hakone onsen', 'Shinkansen'];
  topics.forEach((topic, n) => {
    messages.push({ role: 'user', content: `What should we know about ${topic}?` });
    messages.push({ role: 'assistant', content: answer(topic, n) });
  });
  messages.push({ role: 'user', content: 'Which ryokan in Kyoto serves vegetarian kaiseki?' });
  return messages;
};

/** The shapes Open WebUI sends after compacting, and the index of the message that carries the summary. */
const shapes: Record<string, { make: () => ChatMessage[]; index: number }> = {
  'appended to the system prompt': {
    make: () => [{ role: 'system', content: `${PROMPT}\n${BLOCK}` }, ...recent()],
    index: 0,
  },
  'a system message of its own': { make: () => [{ role: 'system', content: BLOCK }, ...recent()], index: 0 },
  'appended to each text part': {
    make: () => [
      { role: 'system', content: [{ type: 'text', text: `${PROMPT}\n${BLOCK}` }] } as unknown as ChatMessage,
      ...recent(),
    ],
    index: 0,
  },
  // The tool-call loop's compaction (a 0.10+ copy of context_compaction.py, repository not named by the index):
  // `[*system_messages, {'role': 'system', 'content': f'[CONVERSATION SUMMARY]\n{summary}'}, *history]`.
  'a system message after the system prompt': {
    make: () => [{ role: 'system', content: PROMPT }, { role: 'system', content: BLOCK }, ...recent()],
    index: 1,
  },
};

const encoder = loadEncoder('o200k_base');
const blockTokens = encoder.count(BLOCK);
const promptTokens = (messages: unknown[]) =>
  messages.reduce<number>((sum, message) => sum + countMessageTokens(message, encoder), REPLY_PRIMING_TOKENS);
const ALGORITHMS: AlgorithmName[] = ['greedy', 'recency', 'dependency', 'prefix_cache', 'cache_stable'];
/** From less than the summary alone to more than the whole chat. */
const BUDGETS = [1, 100, 300, 600, 1_000, 2_000, 8_000];

describe("Open WebUI's conversation summary (Context Compaction) in the history", () => {
  it.each(Object.keys(shapes))('%s: kept whole at every budget, counted, never summarized', (shape) => {
    for (const algorithm of ALGORITHMS)
      for (const maxTokens of BUDGETS)
        for (const summarize of [false, true]) {
          const { make, index } = shapes[shape]!;
          const messages = make();
          const where = `${algorithm} at ${maxTokens} tokens${summarize ? ', summarizing' : ''}`;
          const { messages: sent, plan } = planContext({
            messages,
            model: 'gpt-4o',
            options: { maxTokens, algorithm, summarize },
          });
          // Kept: the same object, first, untouched.
          for (let at = 0; at <= index; at++) expect(sent[at], where).toBe(messages[at]);
          expect(plan.entries[index], where).toMatchObject({ disposition: 'keep', cause: 'system' });
          expect(plan.entries[index]!.reason, where).toMatch(/Open WebUI's conversation summary/);
          // Recognised, with its own tokens; never part of what would be summarized.
          expect(plan.compactionSummary, where).toEqual({ index, tokens: blockTokens });
          expect(plan.notes, where).toContain(
            `Open WebUI's conversation summary kept (${blockTokens} tokens, in system message ${index})`,
          );
          for (const range of plan.summaryRanges) expect(range.fromIndex, where).toBeGreaterThan(index);
          // Counted: what the plan says it sends is what it sends, the summary's message included.
          if (!summarize) expect(plan.tokensAfter, where).toBe(promptTokens(sent));
          expect(plan.entries[index]!.tokens, where).toBeGreaterThan(blockTokens);
          // Within the budget unless what is kept whatever the budget (the summary's message, the current turn, the
          // guaranteed recent messages) is over it on its own.
          if (!plan.overBudget) expect(plan.tokensAfter, where).toBeLessThanOrEqual(maxTokens);
          else expect(promptTokens(messages.slice(0, index + 1)), where).toBeLessThan(plan.tokensAfter);
        }
  });

  it('takes the room it needs from the chat messages: the same budget keeps fewer of them than without it', () => {
    const withSummary = shapes['appended to the system prompt']!.make();
    const without = [{ role: 'system', content: PROMPT }, ...recent()];
    const options = { maxTokens: 1_000, algorithm: 'recency' as const };
    const a = planContext({ messages: withSummary, model: 'gpt-4o', options });
    const b = planContext({ messages: without, model: 'gpt-4o', options });
    expect(a.plan.compactionSummary?.tokens).toBe(blockTokens);
    expect(b.plan.compactionSummary).toBeUndefined();
    expect(a.plan.tokensAfter).toBeLessThanOrEqual(1_000);
    expect(a.messages.length).toBeLessThan(b.messages.length);
  });

  it('recognises only the block Open WebUI writes; a chat without it plans as it always did', () => {
    const recognised = (first: ChatMessage, rest = recent()) =>
      planContext({ messages: [first, ...rest], model: 'gpt-4o', options: { maxTokens: 600 } }).plan;
    expect(recognised({ role: 'system', content: `${PROMPT}\n${BLOCK}` }).compactionSummary?.tokens).toBe(blockTokens);
    const misses: ChatMessage[] = [
      { role: 'system', content: PROMPT }, // no block
      { role: 'system', content: `${PROMPT} ${COMPACTION_SUMMARY_MARKER}\n${SUMMARY}` }, // marker not starting a line
      { role: 'system', content: `${PROMPT}\n${COMPACTION_SUMMARY_MARKER}\n  ` }, // nothing after the marker
      { role: 'system', content: `${PROMPT}\n${COMPACTION_SUMMARY_MARKER} ${SUMMARY}` }, // not on its own line
    ];
    for (const first of misses) {
      const plan = recognised(first);
      expect(plan.compactionSummary, JSON.stringify(first.content)).toBeUndefined();
      expect(plan.entries[0]!.reason).toBe('system message (always kept)');
      expect(plan.notes.some((note) => note.includes('Open WebUI'))).toBe(false);
    }
    // The marker typed by a user (or quoted by the assistant) is a chat message like any other.
    const typed = recent();
    typed[2] = { role: 'user', content: BLOCK };
    const plan = recognised({ role: 'system', content: PROMPT }, typed);
    expect(plan.compactionSummary).toBeUndefined();
    // Without a block, the plan is the one of the same chat planned before any compacted chat was seen.
    const plain = [{ role: 'system', content: PROMPT }, ...recent()];
    const before = planContext({ messages: plain, model: 'gpt-4o', options: { maxTokens: 600 } });
    planContext({
      messages: shapes['a system message of its own']!.make(),
      model: 'gpt-4o',
      options: { maxTokens: 600 },
    });
    const after = planContext({ messages: plain, model: 'gpt-4o', options: { maxTokens: 600 } });
    expect(after.plan).toEqual(before.plan);
    expect(formatContextNote(contextNoteOf(after.plan, after.plan.tokensAfter, 0))).not.toMatch(/Open WebUI/);
  });

  it('the status line and the note say so, with its tokens; the note is stripped from the next turn with it', () => {
    const { plan } = planContext({
      messages: shapes['appended to the system prompt']!.make(),
      model: 'gpt-4o',
      options: { maxTokens: 600 },
    });
    const note = contextNoteOf(plan, plan.tokensAfter, 0);
    expect(note.compactionSummary).toBe(blockTokens);
    expect(contextNoteSchema.parse(note)).toEqual(note);
    const fmt = (value: number) => value.toLocaleString('en-US');
    expect(formatContextNote(note)).toBe(
      `context: ${fmt(plan.tokensBefore)} → ${fmt(plan.tokensAfter)} tokens · ${note.leftOut} of 13 messages left out` +
        ` · Open WebUI's summary kept (${fmt(blockTokens)} tokens)`,
    );
    const every = formatContextNote({
      before: 20_712,
      after: 1_986,
      messages: 690,
      leftOut: 612,
      summarized: 2,
      compactionSummary: 1_234,
      repeated: 0.62,
      capped: "recent=1000 capped to the admin's budget of 500 tokens",
      run: 'http://eunoe.local/dashboard#runs/r-3',
    });
    expect(every).toBe(
      "context: 20,712 → 1,986 tokens · 612 of 690 messages left out · 2 summarized · Open WebUI's summary kept " +
        "(1,234 tokens) · 62% of the prompt repeats the previous one · recent=1000 capped to the admin's budget of 500" +
        ' tokens · run http://eunoe.local/dashboard#runs/r-3',
    );
    const whole = formatContextNote({
      before: 900,
      after: 900,
      messages: 13,
      leftOut: 0,
      summarized: 0,
      compactionSummary: 5,
    });
    expect(whole).toBe("context: 900 tokens · all 13 messages sent · Open WebUI's summary kept (5 tokens)");
    for (const line of [every, whole]) {
      const messages: ChatMessage[] = [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: `Hello!\n\n${line}\n\n*12 in · 3 out · $0.0001*` },
      ];
      expect(stripContextNotes(messages)[1]!.content).toBe('Hello!\n\n*12 in · 3 out · $0.0001*');
    }
  });
});
