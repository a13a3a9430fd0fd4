import { describe, expect, it } from 'vitest';
import { buildUsageRecord } from '../../src/domain/usage/build-usage-record.js';

describe('buildUsageRecord without Open WebUI ids (API callers)', () => {
  it('two identical replies in one chat get different ledger ids, and a resend of the same body the same id', async () => {
    const turn1 = [
      { role: 'user', content: 'ping' },
      { role: 'assistant', content: 'OK.', usage: { prompt_tokens: 5, completion_tokens: 1 } },
    ];
    const turn2 = [
      ...turn1,
      { role: 'user', content: 'ping again' },
      { role: 'assistant', content: 'OK.', usage: { prompt_tokens: 9, completion_tokens: 1 } },
    ];
    const first = await buildUsageRecord({
      body: { model: 'gpt-4o', chat_id: 'api', messages: turn1 },
      user: { id: 'u' },
      now: 1,
    });
    const second = await buildUsageRecord({
      body: { model: 'gpt-4o', chat_id: 'api', messages: turn2 },
      user: { id: 'u' },
      now: 2,
    });
    const again = await buildUsageRecord({
      body: { model: 'gpt-4o', chat_id: 'api', messages: turn2 },
      user: { id: 'u' },
      now: 3,
    });
    expect(first!.record.messageId).not.toBe(second!.record.messageId);
    expect(again!.record.messageId).toBe(second!.record.messageId);
  });
});

describe('buildUsageRecord: who replied', () => {
  const body = {
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: 'ping' },
      { role: 'assistant', content: 'OK.', usage: { prompt_tokens: 5, completion_tokens: 1 } },
    ],
  };

  it('keeps the user id, role and email Open WebUI sent; an empty or missing email is left out', async () => {
    const full = await buildUsageRecord({ body, user: { id: 'u', email: 'u@example.com', role: 'user' }, now: 1 });
    expect(full!.record).toMatchObject({ userId: 'u', userRole: 'user', userEmail: 'u@example.com' });
    const blank = await buildUsageRecord({ body, user: { id: 'u', email: '' }, now: 1 });
    expect(blank!.record).not.toHaveProperty('userEmail');
    const none = await buildUsageRecord({ body, user: null, now: 1 });
    expect(none!.record).toMatchObject({ userId: 'anonymous' });
    expect(none!.record).not.toHaveProperty('userEmail');
  });
});
