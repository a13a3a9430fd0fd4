import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import type { Message } from '../compress/helpers/order-chat.js';

function chat(turns: number): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are terse.' }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: 'user',
      content: `Turn ${turn}: tell me about item ${turn} ${'and its details '.repeat(10)}`,
    });
    messages.push({ role: 'assistant', content: `Item ${turn} is described here ${'with many words '.repeat(12)}` });
  }
  return messages;
}

/** Length of the common prefix of two message lists (by content). */
function commonPrefix(a: Message[], b: Message[]): number {
  let index = 0;
  while (index < a.length && index < b.length && a[index]!.content === b[index]!.content) index++;
  return index;
}

describe('prefix_cache across HTTP requests: the previous prefix is matched and replayed', () => {
  let runtime: TestRuntime;
  const send = (messages: Message[]) =>
    request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages, metadata: { chat_id: 'prefix-chat' } }, user: { id: 'u' } })
      .expect(200)
      .then((response) => response.body.messages as Message[]);

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ max_tokens: '1500', algorithm: 'prefix_cache' })
      .expect(200);
  });
  afterAll(async () => runtime.dispose());

  it('keeps the previous request’s prefix turn after turn, also after a restart', async () => {
    let history = chat(30);
    let previous = await send(history);
    let broken = 0;
    for (let turn = 0; turn < 8; turn++) {
      if (turn === 4) runtime = await runtime.restart();
      history = [...history, { role: 'user', content: `Follow-up ${turn} ${'more words '.repeat(20)}` }];
      const next = await send(history);
      // prefix_cache re-chooses a small block of recalled older messages just before the current turn,
      // so the reused prefix is most, not all, of the previous request.
      if (commonPrefix(previous, next) < 0.7 * previous.length) broken++;
      history = [...history, { role: 'assistant', content: `Answer ${turn} ${'some words '.repeat(20)}` }];
      previous = next;
    }
    expect(broken).toBeLessThanOrEqual(2);
  });
});
