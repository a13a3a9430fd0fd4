import { describe, expect, it } from 'vitest';
import {
  decayed,
  echoBoost,
  ECHO_HALF_LIFE_TURNS,
  ECHO_MAX_MESSAGES,
  extractEntities,
  matchEcho,
  mergeEcho,
  messageIds,
  planContext,
  validateMessageOrder,
  type EchoBoost,
} from '../../src/domain/engine/index.js';
import { containsEntity } from '../../src/domain/engine/trim/contains-entity.js';
import { escapeHtml } from '../../src/domain/engine/trim/details-blocks.js';
import { EVIDENCE, syslogText, syslogToolChat } from '../helpers/syslog.js';

/** The echo loop's pure parts: entities of a reply, where they came from, decay and bounds, and the boost in planning. */

const REPLY = 'The nvme0n1 controller overheated and was throttled; its error code was E4217.';

/** A tool turn, the question about it and the reply that answered it (its entities are in one line of the log). */
const history = (log?: string): Record<string, unknown>[] => syslogToolChat(log);

/** The chat on the next turn: the reply, then a follow-up that names nothing of the line it is about. */
function followUp(log?: string): Record<string, unknown>[] {
  return [
    ...history(log),
    { role: 'assistant', content: REPLY },
    { role: 'user', content: 'When did that happen? Quote the whole line.' },
  ];
}

/** The echo the outlet of the first turn records, as the next inlet reads it. */
function echoAfterReply(log?: string): EchoBoost {
  const messages = history(log);
  const state = mergeEcho(undefined, matchEcho(messages, messageIds(messages), REPLY), 1);
  return echoBoost(state, 2)!;
}

const toolContent = (messages: readonly unknown[]) =>
  (messages.find((message) => (message as { role: string }).role === 'tool') as { content: string } | undefined)
    ?.content ?? '';

describe('extractEntities', () => {
  it('finds names, numbers, ids, versions, dates, paths and quoted strings, each once, case kept', () => {
    const entities = extractEntities(
      'The nvme0n1 controller hit E4217 at 11:02:17 on 2026-11-20; libssl3 3.0.13-0ubuntu3.4 is in /var/log/dpkg.log ' +
        'and "status installed" says so. Acorn fixed 42 bugs, Acorn again. It took 5 s. See `npm run bench:trim`.',
    );
    expect(entities).toEqual([
      'status installed',
      'npm run bench:trim',
      'nvme0n1',
      'E4217',
      '11:02:17',
      '2026-11-20',
      'libssl3',
      '3.0.13-0ubuntu3.4',
      '/var/log/dpkg.log',
      'Acorn',
      '42',
      // A capitalised word starts a sentence as often as it names something: kept, rarity sorts it out when matched.
      'See',
      'bench:trim',
    ]);
  });

  it('leaves out plain words, capitalised stop words and one-digit numbers, and caps the count', () => {
    expect(extractEntities('It is what it is. The 3 of them were fine. Yes')).toEqual(['Yes']);
    const many = Array.from({ length: 100 }, (_, index) => `id${index}`).join(' ');
    expect(extractEntities(many)).toHaveLength(48);
  });

  it('matches whole tokens only', () => {
    expect(containsEntity('code 1425 here', '42')).toBe(false);
    expect(containsEntity('code 42, here', '42')).toBe(true);
    expect(containsEntity('Foobar', 'Foo')).toBe(false);
    expect(containsEntity('libssl3:amd64', 'libssl3')).toBe(true);
  });
});

describe('matchEcho', () => {
  it('finds the message and the line-naming entities the reply came from; common ones are left out', () => {
    const messages = history();
    const ids = messageIds(messages);
    const record = matchEcho(messages, ids, `${REPLY} Dec sessions were Started as usual.`);
    expect(record.messages[ids[3]!]).toBe(1);
    // `Dec` and `Started` are in every line of the log: they name no line.
    expect(record.terms).toEqual({ nvme0n1: 1, E4217: 1 });
    // The question holds none of the reply's rare entities: it is not recorded.
    expect(record.messages[ids[5]!]).toBeUndefined();
  });

  it("reads Open WebUI 0.6.x tool-call blocks' decoded results", () => {
    const block = `<details type="tool_calls" done="true" id="call_1" name="read_log" arguments="{}" result="${escapeHtml(JSON.stringify(syslogText(200, 50)))}" files="" embeds="">\n<summary>Tool Executed</summary>\n</details>`;
    const messages = [
      { role: 'user', content: 'Show me the log.' },
      { role: 'assistant', content: block },
      { role: 'user', content: 'What overheated?' },
    ];
    const ids = messageIds(messages);
    const record = matchEcho(messages, ids, REPLY);
    expect(record.messages).toEqual({ [ids[1]!]: 1 });
    expect(record.terms).toEqual({ nvme0n1: 1, E4217: 1 });
  });

  it('records nothing for a reply that repeats nothing of the history', () => {
    const messages = history();
    expect(matchEcho(messages, messageIds(messages), 'Nothing to see here: Zanzibar 987654.')).toEqual({
      messages: {},
      terms: {},
    });
  });
});

describe('echo state: decay and bounds', () => {
  it(`counts whole on the next turn and halves every ${ECHO_HALF_LIFE_TURNS} turns`, () => {
    expect(decayed(1, 4, 5)).toBe(1);
    expect(decayed(1, 4, 5 + ECHO_HALF_LIFE_TURNS)).toBeCloseTo(0.5, 10);
    expect(decayed(0.8, 4, 5 + 2 * ECHO_HALF_LIFE_TURNS)).toBeCloseTo(0.2, 10);
    const state = mergeEcho(undefined, { messages: { a: 1 }, terms: { E4217: 1 } }, 4);
    expect(echoBoost(state, 5)).toEqual({ messages: { a: 1 }, terms: { E4217: 1 } });
    expect(echoBoost(state, 8)!.messages.a).toBeCloseTo(0.5, 10);
    // Forgotten below 1/16: twelve turns after the next one.
    expect(echoBoost(state, 17)).toBeDefined();
    expect(echoBoost(state, 18)).toBeUndefined();
  });

  it('keeps at most the strongest entries; a newer echo of the same message wins', () => {
    const old = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`m${index}`, (index + 1) / 100]));
    let state = mergeEcho(undefined, { messages: old, terms: {} }, 1);
    expect(state.messages).toHaveLength(ECHO_MAX_MESSAGES);
    expect(state.messages[0]).toEqual({ key: 'm99', score: 1, turn: 1 });
    expect(state.messages.some((item) => item.key === 'm0')).toBe(false);
    state = mergeEcho(state, { messages: { m0: 1 }, terms: {} }, 9);
    expect(state.messages[0]).toEqual({ key: 'm0', score: 1, turn: 9 });
    expect(state.messages.length).toBeLessThanOrEqual(ECHO_MAX_MESSAGES);
    // Entries older than the floor are dropped at merge time.
    expect(state.messages.every((item) => decayed(item.score, item.turn, 10) >= 1 / 16)).toBe(true);
  });
});

describe('the echo boost in planning', () => {
  it('a follow-up whose answer is the line the previous reply used: the trimmer keeps that line only with the echo', () => {
    const messages = followUp();
    const without = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    const echo = echoAfterReply();
    const withEcho = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 }, echo });
    expect(toolContent(without.messages)).not.toContain(EVIDENCE);
    expect(toolContent(withEcho.messages)).toContain(EVIDENCE);
    for (const result of [without, withEcho]) {
      expect(result.plan.tokensAfter).toBeLessThanOrEqual(2000);
      expect(validateMessageOrder(result.messages)).toEqual([]);
      expect(result.messages).toContain(messages[2]);
    }
    // The tool result's unit weighs twice as much (boost 1, ECHO_GAIN 1).
    expect(withEcho.plan.entries[3]!.weight).toBeCloseTo(2 * without.plan.entries[3]!.weight, 10);
    expect(withEcho.plan.notes.join('\n')).toMatch(/echo loop: 1 message\(s\) a previous reply used weigh more/);
  });

  it('never breaks budget, pairs, order or pins: an echoed message too big for the budget is still trimmed or left out', () => {
    const messages = followUp();
    const ids = messageIds(messages);
    const echo: EchoBoost = { messages: Object.fromEntries(ids.map((id) => [id, 1])), terms: { nvme0n1: 1 } };
    for (const maxTokens of [300, 700, 2000, 8000]) {
      const { messages: sent, plan } = planContext({
        messages,
        model: 'gpt-4o',
        options: { maxTokens, trimToolResults: maxTokens !== 700 },
        marks: { [ids[1]!]: { pinned: true } },
        echo,
      });
      expect(validateMessageOrder(sent)).toEqual([]);
      expect(plan.entries[1]!.disposition).toBe('pinned');
      const sentIndexes = plan.entries.filter((entry) => entry.disposition !== 'drop').map((entry) => entry.index);
      expect(sentIndexes).toEqual([...sentIndexes].sort((a, b) => a - b));
      if (!plan.overBudget) expect(plan.tokensAfter).toBeLessThanOrEqual(maxTokens);
      const call = sent.includes(messages[2]);
      expect(sent.some((message) => (message as { role: string }).role === 'tool')).toBe(call);
    }
  });

  it('an empty echo plans exactly as none', () => {
    const messages = followUp();
    const none = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    const empty = planContext({
      messages,
      model: 'gpt-4o',
      options: { maxTokens: 2000 },
      echo: { messages: {}, terms: {} },
    });
    expect(empty.messages).toEqual(none.messages);
    expect(empty.plan.entries).toEqual(none.plan.entries);
  });
});
