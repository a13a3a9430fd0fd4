import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash, messageIds } from '../../src/domain/engine/index.js';
import { assistant, resend, toolCalls, toolResult, user } from './fixtures/conversations.js';

describe('message ids', () => {
  it('are content-derived: the same history resent gives the same ids', () => {
    const messages = [
      user('hello'),
      assistant('hi'),
      toolCalls(['c1', 'f']),
      toolResult('c1', 'r'),
      user([
        { type: 'text', text: 'see' },
        { type: 'image_url', image_url: { url: 'https://x/y.png' } },
      ]),
    ];
    expect(messageIds(resend(messages))).toEqual(messageIds(messages));
  });

  it('equal the documented sha256 of role, name and text (one-shot hashing changes nothing)', () => {
    const expected = createHash('sha256').update(['user', '', 'hello'].join('\u0000')).digest('base64url').slice(0, 16);
    expect(contentHash(user('hello'))).toBe(expected);
  });

  it.each([
    ['role', user('same'), assistant('same')],
    ['text', user('one'), user('two')],
    ['tool call id', toolResult('a', 'r'), toolResult('b', 'r')],
    ['name', user('x', { name: 'ann' }), user('x', { name: 'bob' })],
  ])('differ by %s', (_name, first, second) => {
    expect(contentHash(first)).not.toBe(contentHash(second));
  });

  it('repeats get ~n suffixes and keep them when the chat grows', () => {
    const messages = [user('ok'), assistant('ok'), user('ok'), assistant('ok')];
    const ids = messageIds(messages);
    expect(ids[2]).toBe(`${ids[0]}~1`);
    expect(messageIds([...messages, user('ok')]).slice(0, 4)).toEqual(ids);
  });

  it('a chat that grows, forks and shrinks gets the ids a fresh count gives (ids carried over only from a prefix)', () => {
    const fresh = (list: ReturnType<typeof user>[]) => {
      const counts = new Map<string, number>();
      return list.map((message) => {
        const hash = contentHash(message);
        const count = counts.get(hash) ?? 0;
        counts.set(hash, count + 1);
        return count === 0 ? hash : `${hash}~${count}`;
      });
    };
    const start = [user('hi'), assistant('ok'), user('ok')];
    const steps = [
      start,
      [...start, assistant('ok'), user('ok')], // grows with repeats
      [...start, assistant('ok'), user('ok')], // resent unchanged
      [...start, assistant('different')], // forks after the shared prefix
      [user('hi'), assistant('ok')], // shrinks (a regenerated reply)
      [user('hi'), assistant('ok'), user('ok'), user('ok'), user('ok')],
    ];
    for (const list of steps) {
      const ids = messageIds(list);
      expect(ids).toEqual(fresh(list));
      ids.push('changed by the caller');
      expect(messageIds(list)).toEqual(fresh(list));
    }
  });
});

describe('content hash memo (by message object)', () => {
  it('the same object hashes once and gives the same id; a fresh equal object gives the same id too', () => {
    const message = user('hello there');
    expect(contentHash(message)).toBe(contentHash(message));
    expect(contentHash({ ...message })).toBe(contentHash(message));
  });

  it.each([
    [
      'content',
      (message: Record<string, unknown>) => {
        message.content = 'edited';
      },
    ],
    [
      'role',
      (message: Record<string, unknown>) => {
        message.role = 'assistant';
      },
    ],
    [
      'name',
      (message: Record<string, unknown>) => {
        message.name = 'ann';
      },
    ],
  ])('a message whose %s changed in place gets a new hash', (_field, mutate) => {
    const message: Record<string, unknown> = user('original text');
    const before = contentHash(message);
    mutate(message);
    const after = contentHash(message);
    expect(after).not.toBe(before);
    expect(after).toBe(contentHash({ ...message }));
  });

  it('array content is never memoised: editing a part in place changes the hash', () => {
    const parts = [{ type: 'text', text: 'first' }];
    const message = user(parts);
    const before = contentHash(message);
    parts[0]!.text = 'second';
    expect(contentHash(message)).not.toBe(before);
  });
});

describe('message ids cover everything that changes a token count', () => {
  it('two tool calls with the same id and name but different arguments get different ids', () => {
    const call = (args: string) => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'search', arguments: args } }],
    });
    expect(contentHash(call('{"q":"a"}'))).not.toBe(contentHash(call(`{"q":"${'x'.repeat(4000)}"}`)));
    expect(contentHash(call('{"q":"a"}'))).toBe(contentHash(call('{"q":"a"}')));
  });

  it('an image part with another detail level gets another id', () => {
    const image = (detail?: string) => ({
      role: 'user',
      content: [{ type: 'image_url', image_url: { url: 'https://x/y.png', ...(detail ? { detail } : {}) } }],
    });
    expect(contentHash(image('low'))).not.toBe(contentHash(image('high')));
    expect(contentHash(image())).not.toBe(contentHash(image('low')));
  });
});
