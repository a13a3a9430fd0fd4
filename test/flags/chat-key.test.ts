import { describe, expect, it } from 'vitest';
import { chatKey } from '../../src/domain/flags/chat-key.js';

const history = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'First question' },
  { role: 'assistant', content: 'Answer' },
];

describe('chatKey', () => {
  it.each([
    ['inlet metadata.chat_id', { metadata: { chat_id: 'c-1' }, messages: history }, 'chat:c-1'],
    ['outlet top-level chat_id', { chat_id: 'c-1', messages: history }, 'chat:c-1'],
    ['metadata wins over top level', { metadata: { chat_id: 'c-1' }, chat_id: 'c-2' }, 'chat:c-1'],
    ['temporary chat local:<id>', { metadata: { chat_id: 'local:abc' } }, 'chat:local:abc'],
    ['empty metadata id falls back to chat_id', { metadata: { chat_id: '' }, chat_id: 'c-3' }, 'chat:c-3'],
  ])('%s', (_, body, key) => {
    expect(chatKey(body, { id: 'u1' })).toBe(key);
  });

  it.each([
    ['no chat id (API caller)', { messages: history }],
    ['a null chat id', { metadata: { chat_id: null }, messages: history }],
    ['the shared legacy "local" id', { metadata: { chat_id: 'local' }, messages: history }],
  ])('%s: derived from user and first user message, stable across turns', (_, body) => {
    const key = chatKey(body, { id: 'u1' });
    expect(key).toMatch(/^derived:[\w-]{22}$/);
    const nextTurn = { ...body, messages: [...history, { role: 'user', content: 'Second' }] };
    expect(chatKey(nextTurn, { id: 'u1' })).toBe(key);
    expect(chatKey(body, { id: 'u2' })).not.toBe(key);
    const otherChat = { ...body, messages: [{ role: 'user', content: 'Another first question' }] };
    expect(chatKey(otherChat, { id: 'u1' })).not.toBe(key);
  });

  it('the inlet (metadata) and outlet (top-level) bodies of one chat share the key', () => {
    expect(chatKey({ metadata: { chat_id: 'x' } }, null)).toBe(chatKey({ chat_id: 'x' }, null));
  });
});
