import { describe, expect, it } from 'vitest';
import { validateMessageOrder } from '../../src/domain/engine/index.js';
import { shippedServerForTests } from '../helpers/shipped-server.js';
import { fillerText, promptTokens, SYSTEM, type Message } from './helpers/flag-chats.js';

/**
 * The issue as reported, against a real server (`node dist/main.js` with the shipped context filter): the admin sets
 * `max_tokens: 500`, `max_cost_usd: 0.002`, `allow_full: false` through the valves route Open WebUI uses; a user
 * lifts `recent` by typing `!recent=1000`, by `!+recent=1000` earlier in the chat, by the user valve `recent`, or
 * by `default_flags: "recent=1000"`. None of them may send more than 500 tokens of a 101-message chat; the status
 * line (the Function's route) says what was capped. With `allow_full: true` the user may lift it as before.
 */
const KEY = 'user-ceiling-key';

describe('a real server: the admin’s budget is a ceiling on what users set', () => {
  const server = shippedServerForTests({ key: KEY, filters: 'context', label: 'ceiling' });

  const post = async (route: string, body: unknown) => {
    const response = await fetch(`${server.url}${route}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };
  /** A chat of 50 turns and the current question (101 chat messages); `earlier` prefixes the first user message. */
  const chat = (current: string, earlier = ''): Message[] => {
    const messages: Message[] = [SYSTEM];
    for (let turn = 1; turn <= 50; turn++)
      messages.push(
        { role: 'user', content: `${turn === 1 ? earlier : ''}${fillerText('u', turn)}` },
        { role: 'assistant', content: fillerText('a', turn) },
      );
    messages.push({ role: 'user', content: current });
    return messages;
  };
  const QUESTION = fillerText('u', 51);
  /** The Pipelines inlet (Open WebUI's Pipelines client): the messages the model would get. */
  const inlet = async (messages: Message[], chatId: string, userId: string) =>
    (await post('/context/filter/inlet', {
      body: { model: 'gpt-4o', messages, metadata: { chat_id: chatId } },
      user: { id: userId, role: 'user' },
    })) as unknown as { messages: Message[] };
  /** The Function's inlet: the messages and the context status line. */
  const functionInlet = async (messages: Message[], chatId: string, userId: string) => {
    const answer = (await post('/integrations/open-webui/inlet', {
      body: { model: 'gpt-4o', messages, metadata: { chat_id: chatId } },
      user: { id: userId, role: 'user' },
    })) as { body: { messages: Message[] }; events: Array<{ type: string; data: { description?: string } }> };
    const status = answer.events.find((event) => event.data.description?.startsWith('context:'))?.data.description;
    return { sent: answer.body.messages, status: status ?? '' };
  };
  const setAdmin = (allowFull: boolean) =>
    post('/context/valves/update', { max_tokens: 500, max_cost_usd: 0.002, allow_full: allowFull });
  const setUser = (userId: string, values: Record<string, unknown>) =>
    post(`/context/valves/user/update?user_id=${userId}`, values);

  it('every route a user has is held to 500 tokens, and the status line names it; allow_full lets them through', async () => {
    const figures: string[] = [];
    const routes = async (run: string) => {
      await setUser(`${run}-valve`, { recent: 1000 });
      await setUser(`${run}-defaults`, { default_flags: 'recent=1000' });
      // `!+recent=1000` on the chat's first message: kept for the chat, in force on this later turn.
      await inlet(chat(QUESTION, '!+recent=1000 ').slice(0, 2), `${run}-persisted`, `${run}-persisted`);
      return {
        inline: await functionInlet(chat(`!recent=1000 ${QUESTION}`), `${run}-inline`, `${run}-inline`),
        valve: await functionInlet(chat(QUESTION), `${run}-valve`, `${run}-valve`),
        defaults: await functionInlet(chat(QUESTION), `${run}-defaults`, `${run}-defaults`),
        persisted: await functionInlet(chat(QUESTION, '!+recent=1000 '), `${run}-persisted`, `${run}-persisted`),
        pipelines: (await inlet(chat(`!recent=1000 ${QUESTION}`), `${run}-pipelines`, `${run}-pipelines`)).messages,
      };
    };

    await setAdmin(false);
    const capped = await routes('capped');
    const statuses = {
      inline: /recent=1000 capped to the admin's budget of 500 tokens/,
      valve: /recent=1000 \(your valves\) capped to the admin's budget of 500 tokens/,
      defaults: /recent=1000 \(your default flags\) capped to the admin's budget of 500 tokens/,
      persisted: /\+recent=1000 capped to the admin's budget of 500 tokens/,
    };
    for (const [route, pattern] of Object.entries(statuses)) {
      const { sent, status } = capped[route as keyof typeof statuses];
      expect(promptTokens(sent), route).toBeLessThanOrEqual(500);
      expect(validateMessageOrder(sent), route).toEqual([]);
      expect(sent.at(-1), route).toEqual({ role: 'user', content: QUESTION });
      expect(status, route).toMatch(pattern);
      figures.push(`${route}: ${sent.length - 1} of 101 messages, ${promptTokens(sent)} tokens`);
    }
    expect(promptTokens(capped.pipelines)).toBeLessThanOrEqual(500);

    await setAdmin(true);
    const lifted = await routes('lifted');
    for (const route of Object.keys(statuses)) {
      const { sent, status } = lifted[route as keyof typeof statuses];
      expect(sent, route).toHaveLength(102);
      expect(status, route).not.toMatch(/capped/);
      figures.push(`allow_full ${route}: ${sent.length - 1} of 101 messages, ${promptTokens(sent)} tokens`);
    }
    expect(lifted.pipelines).toHaveLength(102);
    console.log(`user-lifted recent against max_tokens 500:\n  ${figures.join('\n  ')}`);
  });
});
