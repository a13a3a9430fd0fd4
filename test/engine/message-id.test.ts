import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash, messageIds } from '../../src/engine/index.js';
import { assistant, resend, toolCalls, toolResult, user } from './fixtures/conversations.js';

describe('message ids', () => {
  it('are content-derived: the same history resent gives the same ids', () => {
    const messages = [user('hello'), assistant('hi'), toolCalls(['c1', 'f']), toolResult('c1', 'r'), user([{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }])];
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
});
