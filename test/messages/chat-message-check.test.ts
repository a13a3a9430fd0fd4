import { describe, expect, it } from 'vitest';
import { chatMessageSchema, firstInvalidMessage, plainlyValid } from '../../src/core/messages/chat-message-schema.js';

const samples: unknown[] = [
  { role: 'user', content: 'hi' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'x' }], name: 'bot' },
  { role: 'tool', content: '42', tool_call_id: 'c1' },
  { role: 'user', content: 'hi', name: null, tool_calls: null, tool_call_id: null, extra: { kept: true } },
  { role: 'user' },
  { role: 'system', content: undefined },
  { role: 3, content: 'hi' },
  { content: 'no role' },
  { role: 'user', content: 5 },
  { role: 'user', content: { text: 'object' } },
  { role: 'user', content: 'hi', name: 7 },
  { role: 'assistant', content: 'x', tool_calls: { id: 'not an array' } },
  { role: 'tool', content: 'x', tool_call_id: 9 },
  { role: 'user', content: true },
  null,
  'user: hi',
  ['role', 'user'],
  42,
];

describe('the fast message check agrees with the chat-message schema', () => {
  it.each(samples.map((sample) => [JSON.stringify(sample), sample]))('%s', (_label, sample) => {
    expect(plainlyValid(sample)).toBe(chatMessageSchema.safeParse(sample).success);
  });

  it('names the first invalid message with the schema’s issues', () => {
    const found = firstInvalidMessage([{ role: 'user', content: 'a' }, { role: 'user', content: 5 }, { role: 1 }]);
    expect(found?.index).toBe(1);
    expect(found?.issues[0]?.path).toEqual(['content']);
  });
});
