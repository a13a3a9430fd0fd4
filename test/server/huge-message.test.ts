import { describe, expect, it } from 'vitest';
import { pseudoText } from '../../bench/lib/pseudo-text.js';
import { shippedServerForTests } from '../helpers/shipped-server.js';

/**
 * A 20 MB message through the context filter must not hold the event loop much longer than the same body through a
 * filter that only passes it on (system-prefix without a prefix: the host's own parsing and answering of 20 MB):
 * another client polls `GET /` meanwhile and its longest wait is compared. The plan still holds the budget.
 */
const KEY = 'huge-message-key';
const MEGABYTES = 20;
const huge = `Zebra migration notes. ${pseudoText(MEGABYTES * 1e6)}`.slice(0, MEGABYTES * 1e6);

function conversation(big: string) {
  return [
    { role: 'user', content: big },
    { role: 'assistant', content: 'Noted the zebra migration.' },
    ...Array.from({ length: 4 }, (_, index) => [
      { role: 'user', content: `Question ${index} about cooking pasta?` },
      { role: 'assistant', content: `Boil water ${index}.` },
    ]).flat(),
    { role: 'user', content: 'What did the zebra migration notes say?' },
  ];
}

describe('a 20 MB message through the context inlet', () => {
  const server = shippedServerForTests({ key: KEY, filters: 'context,system-prefix', label: 'huge' });

  const inlet = (filter: string, messages: unknown[]) =>
    fetch(`${server.url}/${filter}/filter/inlet`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        user: { id: 'u1', role: 'user' },
        body: { model: 'gpt-4o', messages, metadata: { chat_id: 'huge-chat' } },
      }),
    });

  /** The longest `GET /` wait while one inlet of `messages` runs through `filter`, and the inlet's answer. */
  async function longestWait(filter: string, messages: unknown[]) {
    let running = true;
    let longest = 0;
    const poll = (async () => {
      while (running) {
        const begin = performance.now();
        await (await fetch(`${server.url}/`)).arrayBuffer();
        longest = Math.max(longest, performance.now() - begin);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    try {
      const response = await inlet(filter, messages);
      const body = (await response.json()) as { messages: Array<{ role: string; content: string }> };
      return { status: response.status, body, longest };
    } finally {
      running = false;
      await poll;
    }
  }

  it('GET / waits about as long as with a pass-through filter while a 20 MB question is planned', async () => {
    // Warm both filters (the context filter loads its token ranks on first use).
    for (const filter of ['context', 'system-prefix'])
      expect((await inlet(filter, conversation('hi'))).status).toBe(200);
    const messages = [...conversation('hi').slice(1, -1), { role: 'user', content: huge }];
    const passThrough = [];
    const context = [];
    for (let round = 0; round < 2; round++) {
      const passed = await longestWait('system-prefix', messages);
      expect(passed.status).toBe(200);
      passThrough.push(passed.longest);
      const planned = await longestWait('context', messages);
      expect(planned.status).toBe(200);
      // The current question is always sent (the plan notes it is over the budget).
      expect(planned.body.messages.at(-1)!.content.length).toBe(huge.length);
      context.push(planned.longest);
    }
    // Generous: a busy machine stretches both sides; the unbounded engine took 10-100 × the pass-through's wait.
    const passWorst = Math.max(...passThrough);
    const contextBest = Math.min(...context);
    console.log(
      `GET / longest wait: pass-through ${passThrough.map(Math.round)} ms, context ${context.map(Math.round)} ms`,
    );
    expect(contextBest).toBeLessThan(passWorst * 4 + 1000);
  }, 300_000);

  it('a 20 MB message in the history is dropped: the plan stays within the budget', async () => {
    const { status, body } = await longestWait('context', conversation(huge));
    expect(status).toBe(200);
    const sent = body.messages;
    // Budget held: the 20 MB message (millions of tokens, over the 16,000-token default) is not sent.
    expect(sent.some((message) => message.content.length > 1000)).toBe(false);
    expect(sent.at(-1)!.content).toBe('What did the zebra migration notes say?');
    expect(sent.map((message) => message.content)).toContain('Question 0 about cooking pasta?');
  }, 300_000);
});
