import { describe, expect, it } from 'vitest';
import { contentHash, messageIds } from '../../src/domain/engine/index.js';
import { TwoGenerationMap } from '../../src/domain/engine/cache/two-generation-map.js';
import { hashesWithListMemo } from '../../src/domain/engine/cache/list-hash-memo.js';

/** Ids computed from scratch, hashing every message (what the memos must reproduce). */
function expectedIds(messages: Array<Record<string, unknown>>): string[] {
  const seen = new Map<string, number>();
  return messages.map((message) => {
    const hash = contentHash({
      ...message,
      content: message.content === undefined ? undefined : JSON.parse(JSON.stringify(message.content)),
    });
    const count = seen.get(hash) ?? 0;
    seen.set(hash, count + 1);
    return count === 0 ? hash : `${hash}~${count}`;
  });
}

/** A fresh copy, as a resent request parses into new objects and strings. */
const resend = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('message ids across resent histories (list and text memos)', () => {
  const base = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'more' },
    { role: 'assistant', content: 'ok' },
  ];

  it('a resent history plus a new turn gets the same ids as computed from scratch, repeats numbered on', () => {
    expect(messageIds(resend(base))).toEqual(expectedIds(base));
    const next = [...base, { role: 'user', content: 'again' }, { role: 'assistant', content: 'ok' }];
    const ids = messageIds(resend(next));
    expect(ids).toEqual(expectedIds(next));
    expect(ids[6]).toBe(`${ids[2]}~2`);
  });

  it('an edit in the middle, a role change or a new name changes exactly those ids', () => {
    messageIds(resend(base));
    const edited = resend(base);
    edited[3]!.content = 'less';
    const renamed = resend(base);
    (renamed[1] as Record<string, unknown>).name = 'alice';
    const roles = resend(base);
    roles[2]!.role = 'user';
    for (const variant of [edited, renamed, roles]) {
      const ids = messageIds(variant);
      expect(ids).toEqual(expectedIds(variant));
    }
    expect(messageIds(edited)[3]).not.toBe(messageIds(resend(base))[3]);
  });

  it('a shorter resend (regenerated reply) and messages with tool calls or parts are handled', () => {
    messageIds(resend(base));
    expect(messageIds(resend(base.slice(0, 3)))).toEqual(expectedIds(base.slice(0, 3)));
    const tools = [
      ...base.slice(0, 2),
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'result' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ];
    messageIds(resend(tools));
    const changed = resend(tools);
    (changed[2] as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls[0]!.function.arguments =
      '{"a":2}';
    expect(messageIds(changed)).toEqual(expectedIds(changed));
    expect(messageIds(changed)[2]).not.toBe(messageIds(resend(tools))[2]);
  });

  it("a plain reply where the previous list had a tool call with the same role and text gets its own id, not the call's", () => {
    const call = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }],
    };
    const withCall = [...base.slice(0, 2), call];
    const withReply = [...base.slice(0, 2), { role: 'assistant', content: '' }];
    const callIds = messageIds(resend(withCall));
    const replyIds = messageIds(resend(withReply));
    expect(replyIds).toEqual(expectedIds(withReply));
    expect(replyIds[2]).not.toBe(callIds[2]);
    // And back: the tool call is hashed with its calls again.
    expect(messageIds(resend(withCall))).toEqual(callIds);
  });
});

describe('chats that share a system prompt', () => {
  it('keep their own memo entries: an interleaved turn hashes only its new messages', () => {
    const prompt = { role: 'system', content: `workspace prompt ${Math.random()}` };
    const chat = (name: string, turns: number) =>
      Array.from({ length: turns }, (_, at) => ({ role: at % 2 ? 'assistant' : 'user', content: `${name} ${at}` }));
    let hashed = 0;
    const counting = (message: { content?: unknown }) => {
      hashed += 1;
      return `h:${String(message.content)}`;
    };
    const a = [prompt, ...chat('alpha', 20)];
    const b = [prompt, ...chat('beta', 20)];
    hashesWithListMemo(resend(a), counting);
    hashesWithListMemo(resend(b), counting);
    hashed = 0;
    const aNext = [...a, { role: 'assistant', content: 'alpha reply' }, { role: 'user', content: 'alpha next' }];
    expect(hashesWithListMemo(resend(aNext), counting)).toEqual(aNext.map((message) => `h:${message.content}`));
    expect(hashed).toBe(2);
    const bNext = [...b, { role: 'assistant', content: 'beta reply' }];
    hashesWithListMemo(resend(bNext), counting);
    expect(hashed).toBe(3);
  });

  it('interleaved chats under one system prompt keep correct ids', () => {
    const prompt = { role: 'system', content: `another prompt ${Math.random()}` };
    const a = [prompt, { role: 'user', content: 'ok' }, { role: 'assistant', content: 'ok' }];
    const b = [prompt, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'ok' }];
    for (const list of [a, b, [...a, { role: 'user', content: 'ok' }], [...b, { role: 'user', content: 'ok' }], a]) {
      expect(messageIds(resend(list))).toEqual(expectedIds(list));
    }
  });
});

describe('TwoGenerationMap', () => {
  it('keeps at most two generations and promotes old entries that are read', () => {
    const map = new TwoGenerationMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2); // the young generation is full: it becomes the old one
    map.set('c', 3);
    expect(map.get('a')).toBe(1); // read from the old generation, copied to the young (full again: rotates)
    map.set('d', 4);
    expect(map.get('a')).toBe(1); // survived one more rotation because it was read
    expect(map.get('b')).toBeUndefined(); // never read: gone after two rotations
    expect(map.size).toBeLessThanOrEqual(4);
  });
});
