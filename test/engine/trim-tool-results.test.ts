import { describe, expect, it } from 'vitest';
import { countMessageTokens, loadEncoder, planContext, validateMessageOrder } from '../../src/domain/engine/index.js';
import { detailsResults, escapeHtml, unescapeHtml } from '../../src/domain/engine/trim/details-blocks.js';
import { EVIDENCE, syslogText } from '../helpers/syslog.js';

/**
 * Long tool results of earlier turns are trimmed to their head, the lines the question needs and their tail.
 *
 * Where Open WebUI puts tool calls and results in what an inlet filter receives, read from its source
 * (open-webui/open-webui, backend/open_webui/utils/middleware.py, stored at commit 000032ed1cfec98667bbf62795b0f8e0c76025b5,
 * and backend/open_webui/utils/misc.py `convert_output_to_messages`):
 * - 0.10+: a saved chat's stored `output` items are expanded into an assistant message with `tool_calls` and one
 *   `role: "tool"` message per result (`tool_call_id`, `content`) before the Pipelines inlet;
 * - earlier (0.6.x), the history the browser resends carries the calls inside the assistant's content, as
 *   `serialize_content_blocks` writes them: `<details type="tool_calls" done="true" id="…" name="…"
 *   arguments="{html.escape(json.dumps(arguments))}" result="{html.escape(json.dumps(result, ensure_ascii=False))}"
 *   files="" embeds="…">\n<summary>Tool Executed</summary>\n</details>`.
 */

function toolChat(result: string, name = 'read_log'): Record<string, unknown>[] {
  return [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Show me the system log of the server.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: '{"path":"/var/log/syslog"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: result },
    { role: 'assistant', content: 'The log shows routine session starts and one kernel warning.' },
    { role: 'user', content: 'Which controller overheated, and what was its error code?' },
  ];
}

const tokensOf = (message: unknown) => countMessageTokens(message, loadEncoder('o200k_base'));

describe('trimming long tool results (role: "tool" messages, Open WebUI 0.10+)', () => {
  it('keeps head, matching line with neighbours and tail, with a marker; the pair stays valid; under budget', () => {
    const messages = toolChat(syslogText(3000, 1700));
    const { messages: sent, plan } = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    const tool = sent.find((message) => (message as { role: string }).role === 'tool') as { content: string };
    expect(tool).toBeDefined();
    expect(tool.content).toContain(EVIDENCE);
    expect(tool.content).toContain('Started session 1699 of user root.');
    expect(tool.content).toContain('Started session 1701 of user root.');
    expect(tool.content.startsWith('Dec 04 11:00:00 host systemd[1]: Started session 0 of user root.')).toBe(true);
    expect(tool.content.endsWith('Started session 2999 of user root.')).toBe(true);
    expect(tool.content).toMatch(/^… 1,\d{3} lines left out …$/m);
    const leftOut = [...tool.content.matchAll(/… ([\d,]+) lines left out …/g)].reduce(
      (sum, match) => sum + Number(match[1]!.replace(/,/g, '')),
      0,
    );
    expect(leftOut + tool.content.split('\n').length - 2).toBe(3000);
    expect(validateMessageOrder(sent)).toEqual([]);
    expect(sent).toContain(messages[2]);
    expect(plan.tokensAfter).toBeLessThanOrEqual(2000);
    expect(plan.overBudget).toBe(false);
    const entry = plan.entries[3]!;
    expect(entry.disposition).toBe('keep');
    expect(entry.trimmed).toEqual({ tokensBefore: tokensOf(messages[3]), leftOut, unit: 'lines' });
    expect(entry.tokens).toBe(tokensOf(tool));
    expect(plan.tokensBefore).toBeGreaterThan(60_000);
    expect(plan.notes.join('\n')).toMatch(/1 long message\(s\) of earlier turns trimmed/);
  });

  it('sends every message it does not trim byte for byte (the same objects)', () => {
    const messages = toolChat(syslogText(3000, 1700));
    const copy = structuredClone(messages);
    const { messages: sent, plan } = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    expect(messages).toEqual(copy);
    expect(plan.entries.filter((entry) => entry.trimmed).map((entry) => entry.index)).toEqual([3]);
    sent.forEach((message, position) => {
      const index = plan.entries.filter((entry) => entry.disposition !== 'drop')[position]!.index;
      if (plan.entries[index]!.trimmed) expect(message).not.toBe(messages[index]);
      else {
        expect(message).toBe(messages[index]);
        expect(JSON.stringify(message)).toBe(JSON.stringify(copy[index]));
      }
    });
  });

  it('never trims inside the running turn: a result after the newest user message is sent whole', () => {
    const log = syslogText(3000, 1700);
    const messages = [
      { role: 'user', content: 'Show me yesterday’s log.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_0', content: syslogText(3000, 5) },
      { role: 'user', content: 'Which controller overheated, and what was its error code? Read the log.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: log },
    ];
    const { messages: sent, plan } = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    expect(sent).toContain(messages[5]);
    expect(plan.entries.filter((entry) => entry.trimmed).map((entry) => entry.index)).toEqual([2]);
    expect(plan.overBudget).toBe(true);
  });

  it('trims earlier turns while the current turn runs its tool loop, and leaves that loop whole', () => {
    const old = syslogText(3000, 1700);
    const fresh = syslogText(200, 10);
    const messages = [
      ...toolChat(old),
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'read_log', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_2', content: fresh },
    ];
    const { messages: sent, plan } = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 8000 } });
    expect(plan.entries[3]!.trimmed).toBeDefined();
    expect(plan.entries[7]!.trimmed).toBeUndefined();
    expect(sent).toContain(messages[7]);
    expect(validateMessageOrder(sent)).toEqual([]);
    expect(plan.tokensAfter).toBeLessThanOrEqual(8000);
  });

  it('leaves results alone when the chat fits the budget, when switched off, and for excluded tools', () => {
    const messages = toolChat(syslogText(3000, 1700));
    const trims = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    expect(trims.plan.entries[3]!.trimmed).toBeDefined();
    const fits = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 200_000 } });
    expect(fits.messages[3]).toBe(messages[3]);
    const off = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000, trimToolResults: false } });
    expect(off.plan.entries[3]!.disposition).toBe('drop');
    expect(off.plan.entries.some((entry) => entry.trimmed)).toBe(false);
    const excluded = planContext({
      messages,
      model: 'gpt-4o',
      options: { maxTokens: 2000, trimExcludeTools: ['read_log'] },
    });
    expect(excluded.plan.entries[3]!.disposition).toBe('drop');
    const small = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000, trimMinTokens: 100_000 } });
    expect(small.plan.entries[3]!.disposition).toBe('drop');
  });

  it('trims a JSON array result item by item and keeps it valid JSON', () => {
    const results = Array.from({ length: 200 }, (_, index) => ({
      title: index === 120 ? 'Lisbon tram 28 timetable' : `Unrelated page ${index}`,
      link: `https://example.com/${index}`,
      snippet: index === 120 ? 'Tram 28 leaves Martim Moniz every 12 minutes' : `Nothing about it here, page ${index}.`,
    }));
    const messages = toolChat(JSON.stringify(results), 'search_web');
    messages[5] = { role: 'user', content: 'How often does tram 28 leave Martim Moniz?' };
    const { messages: sent, plan } = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    const tool = sent.find((message) => (message as { role: string }).role === 'tool') as { content: string };
    const parsed = JSON.parse(tool.content) as unknown[];
    expect(parsed).toContainEqual(results[120]);
    expect(parsed).toContainEqual(results[0]);
    expect(parsed.some((item) => typeof item === 'string' && /^… \d+ items left out …$/.test(item))).toBe(true);
    expect(plan.entries[3]!.trimmed?.unit).toBe('items');
    expect(plan.tokensAfter).toBeLessThanOrEqual(2000);
  });

  it('trims a long pasted text of an earlier turn only when trimLongMessages is on', () => {
    const messages = [
      { role: 'user', content: `Here is my log:\n${syslogText(3000, 1700)}` },
      { role: 'assistant', content: 'Thanks, I read it.' },
      { role: 'user', content: 'Which controller overheated, and what was its error code?' },
    ];
    const off = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    expect(off.plan.entries[0]!.trimmed).toBeUndefined();
    const on = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000, trimLongMessages: true } });
    expect(on.plan.entries[0]!.trimmed).toBeDefined();
    expect((on.messages[0] as { content: string }).content).toContain(EVIDENCE);
    expect(on.plan.tokensAfter).toBeLessThanOrEqual(2000);
  });
});

/** An assistant message as Open WebUI (0.6.x) stores and resends a native tool call: the details block. */
function detailsMessage(result: string, name = 'read_log'): string {
  return (
    'Let me read the log.\n' +
    `<details type="tool_calls" done="true" id="call_1" name="${name}" arguments="${escapeHtml(JSON.stringify({ path: '/var/log/syslog' }))}" result="${escapeHtml(JSON.stringify(result))}" files="" embeds="${escapeHtml(JSON.stringify([]))}">\n` +
    '<summary>Tool Executed</summary>\n</details>\n' +
    'The log shows routine session starts and one kernel warning.'
  );
}

describe('trimming results inside Open WebUI tool-call blocks (assistant content, 0.6.x)', () => {
  it('cuts the result attribute, keeps the block well-formed and everything outside it byte for byte', () => {
    const content = detailsMessage(syslogText(3000, 1700));
    const messages = [
      { role: 'user', content: 'Show me the system log of the server.' },
      { role: 'assistant', content },
      { role: 'user', content: 'Which controller overheated, and what was its error code?' },
    ];
    const { messages: sent, plan } = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
    expect(plan.entries[1]!.trimmed).toBeDefined();
    expect(plan.entries[1]!.disposition).toBe('keep');
    const trimmed = (sent[1] as { content: string }).content;
    const [block] = detailsResults(trimmed);
    expect(block).toBeDefined();
    expect(block!.name).toBe('read_log');
    expect(block!.wasString).toBe(true);
    expect(block!.text).toContain(EVIDENCE);
    expect(block!.text).toMatch(/^… [\d,]+ lines left out …$/m);
    const [original] = detailsResults(content);
    expect(trimmed.slice(0, block!.start)).toBe(content.slice(0, original!.start));
    expect(trimmed.slice(block!.end)).toBe(content.slice(original!.end));
    expect(trimmed.slice(block!.start, block!.end)).not.toMatch(/["<>]/);
    expect(JSON.parse(unescapeHtml(trimmed.slice(block!.start, block!.end)))).toBe(block!.text);
    expect(trimmed.match(/<details /g)).toHaveLength(1);
    expect(trimmed.match(/<\/details>/g)).toHaveLength(1);
    expect(sent[0]).toBe(messages[0]);
    expect(sent[2]).toBe(messages[2]);
    expect(plan.tokensAfter).toBeLessThanOrEqual(2000);
  });

  it('leaves the blocks of excluded tools and of the current turn whole', () => {
    const content = detailsMessage(syslogText(3000, 1700), 'read_log');
    const messages = [
      { role: 'user', content: 'Show me the system log of the server.' },
      { role: 'assistant', content },
      { role: 'user', content: 'Which controller overheated, and what was its error code?' },
    ];
    expect(
      planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } }).plan.entries[1]!.trimmed,
    ).toBeDefined();
    const excluded = planContext({
      messages,
      model: 'gpt-4o',
      options: { maxTokens: 2000, trimExcludeTools: ['read_log'] },
    });
    expect(excluded.plan.entries[1]!.trimmed).toBeUndefined();
    const current = planContext({ messages: messages.slice(0, 2), model: 'gpt-4o', options: { maxTokens: 2000 } });
    expect(current.messages).toContain(messages[1]);
    expect(current.plan.entries[1]!.trimmed).toBeUndefined();
  });
});

describe('trimming under many budgets and shapes (seeded)', () => {
  /** Small deterministic generator (mulberry32). */
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let value = Math.imul(state ^ (state >>> 15), 1 | state);
      value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
      return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('never exceeds the budget, keeps every pair valid, sends untrimmed messages as they came, and trims', () => {
    let trimmedChats = 0;
    for (let seed = 1; seed <= 24; seed += 1) {
      const next = random(seed);
      const messages: Record<string, unknown>[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
      const turns = 2 + Math.floor(next() * 4);
      for (let turn = 0; turn < turns; turn += 1) {
        messages.push({ role: 'user', content: `Turn ${turn}: read the log please.` });
        const lines = 200 + Math.floor(next() * 3000);
        const log = syslogText(lines, Math.floor(next() * lines));
        if (next() < 0.5) {
          const calls = 1 + Math.floor(next() * 2);
          const ids = Array.from({ length: calls }, (_, call) => `call_${turn}_${call}`);
          messages.push({
            role: 'assistant',
            content: null,
            tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'read_log', arguments: '{}' } })),
          });
          for (const id of ids) messages.push({ role: 'tool', tool_call_id: id, content: log });
          messages.push({ role: 'assistant', content: 'Read.' });
        } else messages.push({ role: 'assistant', content: detailsMessage(log) });
      }
      messages.push({ role: 'user', content: 'Which controller overheated, and what was its error code?' });
      const budget = [2000, 4000, 8000, 32000][seed % 4]!;
      const { messages: sent, plan } = planContext({ messages, model: 'gpt-4o', options: { maxTokens: budget } });
      expect(validateMessageOrder(sent)).toEqual([]);
      expect(plan.overBudget).toBe(false);
      expect(plan.tokensAfter).toBeLessThanOrEqual(budget);
      const total = sent.reduce<number>((sum, message) => sum + tokensOf(message), 3);
      expect(total).toBe(plan.tokensAfter);
      const kept = plan.entries.filter((entry) => entry.disposition !== 'drop');
      sent.forEach((message, position) => {
        if (kept[position]!.trimmed) expect(message).not.toBe(messages[kept[position]!.index]);
        else expect(message).toBe(messages[kept[position]!.index]);
      });
      if (plan.entries.some((entry) => entry.trimmed && entry.disposition !== 'drop')) trimmedChats += 1;
    }
    expect(trimmedChats).toBeGreaterThan(12);
  });
});
