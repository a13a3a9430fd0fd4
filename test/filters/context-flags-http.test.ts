import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAGS_LINE_PREFIX } from '../../src/domain/flags/describe-flags.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { contextInlet } from './helpers/context-http.js';
import {
  fillerText,
  label,
  labelOf,
  labels,
  promptTokens,
  SimulatedChat,
  SYSTEM,
  type Message,
} from './helpers/flag-chats.js';

/**
 * Every built-in flag, through the real HTTP inlet, over several turns of one chat. Open WebUI
 * resends the whole history each turn (flag blocks as typed) with `metadata.chat_id`; each flag
 * is compared with a control: the same chat without the flag, under another chat id. Ordinary
 * messages all cost 64 tokens and weigh the same, so the control keeps the newest that fit.
 */
describe('context filter: every built-in flag changes the selection over HTTP', () => {
  let runtime: TestRuntime;
  const user = { id: 'u-flags', email: 'flags@example.com', name: 'F', role: 'user' };

  const inlet = (messages: Message[], chatId: string) => contextInlet(runtime, messages, chatId, user);
  const outlet = async (messages: Message[], chatId: string, reply: string): Promise<string> => {
    const body = { model: 'gpt-4o', chat_id: chatId, messages: [...messages, { role: 'assistant', content: reply }] };
    const response = await request(runtime.app)
      .post('/context/filter/outlet')
      .set(runtime.auth)
      .send({ body, user })
      .expect(200);
    return response.body.messages.at(-1).content as string;
  };
  /** Admin valves: a 700-token budget (system + 10 ordinary messages) unless overridden. */
  const setValves = async (overrides: Record<string, string | number> = {}) => {
    const values = Object.fromEntries(
      Object.entries({ max_tokens: 700, ...overrides }).map(([key, value]) => [key, String(value)]),
    );
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send(values).expect(200);
  };
  const chat = (chatId: string, start?: Message[]) => new SimulatedChat(inlet, chatId, start);

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
  });
  afterAll(async () => runtime.dispose());

  it('!full sends the whole history on its turn only; the next turn trims exactly like the control', async () => {
    await setValves();
    const flagged = chat('full');
    const control = chat('full-control');
    await flagged.turns(9);
    await control.turns(9);
    const full = await flagged.turn({ prefix: '!full ' });
    const trimmed = await control.turn();
    expect(full).toHaveLength(flagged.history.length - 1); // everything but the reply appended after the turn
    expect(full.at(-1)!.content).toBe(fillerText('u', 10));
    expect(promptTokens(full)).toBeGreaterThan(700);
    expect(promptTokens(trimmed)).toBeLessThanOrEqual(700);
    expect(labels(trimmed)).not.toContain('u01');
    // Next turn: no flag, trimmed again, the same selection as the control.
    const next = await flagged.turn();
    const controlNext = await control.turn();
    expect(promptTokens(next)).toBeLessThanOrEqual(700);
    expect(labels(next)).toEqual(labels(controlNext));
    expect(labels(next)).not.toContain('u01');
  });

  it('!nosum without a summarizer is accepted and changes nothing (this turn, or with +nosum on later turns)', async () => {
    await setValves();
    const flagged = chat('nosum');
    const control = chat('nosum-control');
    await flagged.turns(8);
    await control.turns(8);
    const temporary = await flagged.turn({ prefix: '!nosum ' });
    expect(temporary).toEqual(await control.turn());
    expect(await outlet(flagged.history.slice(0, -1), 'nosum', 'ok')).toBe('ok'); // no "ignored" notice
    const persistent = await flagged.turn({ prefix: '!+nosum ' });
    expect(persistent).toEqual(await control.turn());
    for (let turn = 0; turn < 3; turn++) expect(await flagged.turn()).toEqual(await control.turn());
    expect(promptTokens(flagged.sent.at(-1)!)).toBeLessThanOrEqual(700);
    const shown = await flagged.turn({ prefix: '!flags ' });
    await control.turn();
    expect(await outlet(flagged.history.slice(0, -1), 'nosum', 'ok')).toMatch(/\+nosum/);
    expect(shown.at(-1)!.content).toBe(fillerText('u', flagged.sent.length));
  });

  it('!target=N sends fewer tokens than the control, within N, on its turn only', async () => {
    await setValves({ max_tokens: 1500 });
    const flagged = chat('target');
    const control = chat('target-control');
    await flagged.turns(14);
    await control.turns(14);
    const targeted = await flagged.turn({ prefix: '!target=400 ' });
    const controlSent = await control.turn();
    expect(promptTokens(controlSent)).toBeGreaterThan(1400);
    expect(promptTokens(controlSent)).toBeLessThanOrEqual(1500);
    expect(promptTokens(targeted)).toBeLessThanOrEqual(400 + 20);
    expect(promptTokens(targeted)).toBeGreaterThan(400 - 64 - 20);
    expect(targeted.at(-1)!.content).toBe(fillerText('u', 15));
    // `!target` is for this turn: the next one uses the admin budget again, like the control.
    const next = await flagged.turn();
    expect(labels(next)).toEqual(labels(await control.turn()));
    // `!+target` keeps the target on later turns; `!-target` removes it.
    for (const sent of [await flagged.turn({ prefix: '!+target=400 ' }), await flagged.turn(), await flagged.turn()]) {
      expect(promptTokens(sent)).toBeLessThanOrEqual(400 + 20);
    }
    await control.turns(3);
    const removed = await flagged.turn({ prefix: '!-target ' });
    expect(labels(removed)).toEqual(labels(await control.turn()));
    expect(promptTokens(removed)).toBeGreaterThan(1400);
  });

  it('!context=N keeps only the last N turns; !+context=N on later turns too; !-context removes it', async () => {
    await setValves({ max_tokens: 0 });
    const flagged = chat('context');
    const control = chat('context-control');
    await flagged.turns(5);
    await control.turns(5);
    const users = (sent: Message[]) => sent.filter((message) => message.role === 'user').map(labelOf);
    const chatOnly = (sent: Message[]) => sent.filter((message) => message.role !== 'system');

    const two = await flagged.turn({ prefix: '!context=2 ' });
    expect(users(two)).toEqual(['u05', 'u06']);
    expect(chatOnly(two)[0]!.role).toBe('user');
    expect(two[0]).toEqual(SYSTEM);
    expect(users(await control.turn())).toHaveLength(6);
    // Temporary: the next turn sends everything again, like the control.
    expect(labels(await flagged.turn())).toEqual(labels(await control.turn()));

    const three = await flagged.turn({ prefix: '!+context=3 ' });
    expect(users(three)).toEqual(['u06', 'u07', 'u08']);
    await control.turn();
    for (let turn = 9; turn <= 10; turn++) {
      const sent = await flagged.turn();
      const controlSent = await control.turn();
      expect(users(sent)).toEqual([label('u', turn - 2), label('u', turn - 1), label('u', turn)]);
      expect(users(controlSent)).toHaveLength(turn);
    }
    const removed = await flagged.turn({ prefix: '!-context ' });
    expect(users(removed)).toHaveLength(11);
    expect(labels(removed)).toEqual(labels(await control.turn()));
  });

  it('!recent=N keeps the last N messages on its turn, !+recent=N on later turns too, where the control drops some; !-recent removes it', async () => {
    await setValves();
    // Turns 1-3 are about the topic; later questions are too, so relevance pulls old turns in and pushes recent replies out.
    const flagged = chat('recent');
    const control = chat('recent-control');
    for (const played of [flagged, control]) {
      await played.turns(3, { topic: true, topicReply: true });
      await played.turns(5);
    }
    // The control's history is the flagged one without the flag blocks.
    const lastLabels = (count: number) => labels(control.history).slice(-count);

    const forced = await flagged.turn({ prefix: '!recent=8 ', topic: true });
    const controlSent = await control.turn({ topic: true });
    const wanted = lastLabels(9).slice(0, 8); // the history before the reply appended after the turn
    expect(wanted.at(-1)).toBe('u09');
    for (const name of wanted) expect(labels(forced)).toContain(name);
    expect(wanted.filter((name) => !labels(controlSent).includes(name)).length).toBeGreaterThan(0);
    expect(promptTokens(forced)).toBeLessThanOrEqual(700);

    // Temporary: the next turn selects like the control again.
    expect(labels(await flagged.turn({ topic: true }))).toEqual(labels(await control.turn({ topic: true })));

    await flagged.turn({ prefix: '!+recent=8 ', topic: true });
    await control.turn({ topic: true });
    for (let turn = 0; turn < 3; turn++) {
      const sent = await flagged.turn({ topic: true });
      const controlTurn = await control.turn({ topic: true });
      const last = lastLabels(9).slice(0, 8);
      for (const name of last) expect(labels(sent)).toContain(name);
      expect(last.filter((name) => !labels(controlTurn).includes(name)).length).toBeGreaterThan(0);
    }
    const removed = await flagged.turn({ prefix: '!-recent ', topic: true });
    expect(labels(removed)).toEqual(labels(await control.turn({ topic: true })));
  });

  it('!pin and !+pin keep the carrying message on every later turn; the control drops it', async () => {
    await setValves();
    const flagged = chat('pin');
    const control = chat('pin-control');
    await flagged.turn();
    await control.turn();
    await flagged.turn({ prefix: '!pin ' });
    await control.turn();
    await flagged.turn({ prefix: '!+pin ' });
    await control.turn();
    for (let turn = 4; turn <= 14; turn++) {
      const sent = await flagged.turn();
      const controlSent = await control.turn();
      expect(labels(sent)).toEqual(expect.arrayContaining(['u02', 'u03']));
      expect(sent.find((message) => labelOf(message) === 'u02')!.content).toBe(fillerText('u', 2));
      expect(promptTokens(sent)).toBeLessThanOrEqual(700);
      if (turn >= 8) {
        expect(labels(controlSent)).not.toContain('u02');
        expect(labels(controlSent)).not.toContain('u03');
        expect(labels(sent)).not.toContain('u01'); // the unpinned neighbour is dropped as in the control
      }
    }
  });

  it('!tag=label on an early message + !keep_tag=label (this turn) or !+keep_tag (later turns) keeps it; untagged it is dropped', async () => {
    await setValves();
    // Control: the same chat and the same keep_tag flags, but message 2 was never tagged.
    const flagged = chat('tag');
    const control = chat('tag-control');
    for (const [played, tag] of [
      [flagged, '!tag=decision '],
      [control, ''],
    ] as const) {
      await played.turn();
      await played.turn({ prefix: tag });
      await played.turns(7);
    }
    const kept = await flagged.turn({ prefix: '!keep_tag=decision ' });
    const controlKept = await control.turn({ prefix: '!keep_tag=decision ' });
    expect(labels(kept)).toContain('u02');
    expect(labels(kept)).not.toContain('u01');
    expect(labels(controlKept)).not.toContain('u02');
    expect(promptTokens(kept)).toBeLessThanOrEqual(700);
    // `!keep_tag` was for that turn only.
    expect(labels(await flagged.turn())).not.toContain('u02');
    await control.turn();
    await flagged.turn({ prefix: '!+keep_tag=decision ' });
    await control.turn({ prefix: '!+keep_tag=decision ' });
    for (let turn = 0; turn < 3; turn++) {
      expect(labels(await flagged.turn())).toContain('u02');
      expect(labels(await control.turn())).not.toContain('u02');
    }
  });

  it('!weight=10 keeps the message that carried it on later turns, where the control drops it', async () => {
    await setValves();
    const flagged = chat('weight');
    const control = chat('weight-control');
    await flagged.turn();
    await control.turn();
    await flagged.turn({ prefix: '!weight=10 ' });
    await control.turn();
    for (let turn = 3; turn <= 12; turn++) {
      if (turn === 9) runtime = await runtime.restart(); // the weight is stored per chat, like pins
      const sent = await flagged.turn();
      const controlSent = await control.turn();
      if (turn >= 7) {
        expect(labels(controlSent)).not.toContain('u02');
        expect(labels(sent)).toContain('u02');
        expect(labels(sent)).not.toContain('u01');
      }
    }
  });

  describe('smart weighting', () => {
    /** Shares no word with the question it answers; longer than an ordinary message, so it never just fills a gap. */
    const ANSWER =
      'Go with Postgres: it handles transactions well, replicates cleanly, has mature tooling for backups and point-in-time recovery, supports JSON columns when a schema is still moving, and every hosting provider you might pick offers a managed version with automated failover and monitoring.';
    /** A chat that opens with a tool call about invoice 4411 and a question about the database. */
    const opening = (): Message[] => [
      SYSTEM,
      { role: 'user', content: 'Look up invoice 4411 for ACME please.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_4411', type: 'function', function: { name: 'get_invoice', arguments: '{"invoice":"4411"}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_4411',
        content: 'invoice 4411 status: paid in full on March 2nd, 1200 EUR, customer ACME',
      },
      { role: 'assistant', content: 'Done: I fetched it for you.' },
      { role: 'user', content: 'Which database engine should the billing service use?' },
      { role: 'assistant', content: ANSWER },
    ];
    const toolCall = (sent: Message[]) => sent.some((message) => Array.isArray(message.tool_calls));
    const toolResult = (sent: Message[]) => sent.some((message) => message.role === 'tool');
    const invoiceQuestion = 'What was the status of invoice 4411 for ACME?';
    const databaseQuestion = 'Remind me which database engine the billing service should use?';

    it('!tool_penalty=F changes whether a relevant tool call/result pair survives', async () => {
      await setValves({ weighting: 'smart' });
      const flagged = chat('tool', opening());
      const control = chat('tool-control', opening());
      await flagged.turns(8);
      await control.turns(8);
      const controlSent = await control.turn({ text: invoiceQuestion });
      expect(toolCall(controlSent) && toolResult(controlSent)).toBe(true);
      const penalised = await flagged.turn({ prefix: '!tool_penalty=0.01 ', text: invoiceQuestion });
      expect(toolCall(penalised) || toolResult(penalised)).toBe(false);
      expect(penalised.at(-1)!.content).toBe(invoiceQuestion);
      // Persistent on later turns, while the control keeps the pair.
      await flagged.turn({ prefix: '!+tool_penalty=0.01 ', text: `${invoiceQuestion} Again.` });
      await control.turn({ text: `${invoiceQuestion} Again.` });
      for (let turn = 0; turn < 2; turn++) {
        const sent = await flagged.turn({ text: `${invoiceQuestion} Once more ${turn}.` });
        const controlTurn = await control.turn({ text: `${invoiceQuestion} Once more ${turn}.` });
        expect(toolCall(sent) || toolResult(sent)).toBe(false);
        expect(toolCall(controlTurn) && toolResult(controlTurn)).toBe(true);
      }
      // With no penalty at all the pair survives too, and never half of it.
      const unpenalised = await flagged.turn({ prefix: '!tool_penalty=1 ', text: invoiceQuestion });
      expect(toolCall(unpenalised) && toolResult(unpenalised)).toBe(true);
    });

    it('!pair_coherence=F changes whether the answer to a relevant question survives', async () => {
      await setValves({ weighting: 'smart' });
      const flagged = chat('pair', opening());
      const control = chat('pair-control', opening());
      await flagged.turns(8);
      await control.turns(8);
      const answer = ANSWER;
      const contents = (sent: Message[]) => sent.map((message) => message.content);
      const controlSent = await control.turn({ text: databaseQuestion });
      expect(contents(controlSent)).toContain(answer);
      const loose = await flagged.turn({ prefix: '!pair_coherence=0 ', text: databaseQuestion });
      expect(contents(loose)).toContain('Which database engine should the billing service use?');
      expect(contents(loose)).not.toContain(answer);
      await flagged.turn({ prefix: '!+pair_coherence=0 ', text: `${databaseQuestion} Again.` });
      await control.turn({ text: `${databaseQuestion} Again.` });
      const later = await flagged.turn({ text: `${databaseQuestion} Once more.` });
      expect(contents(later)).not.toContain(answer);
      expect(contents(await control.turn({ text: `${databaseQuestion} Once more.` }))).toContain(answer);
    });
  });

  it('!flags lists the chat flags under the reply on the outlet', async () => {
    await setValves();
    const flagged = chat('show');
    await flagged.turn({ prefix: '!+recent=6,+keep_tag=decision ' });
    await flagged.turn({ prefix: '!pin ' });
    const sent = await flagged.turn({ prefix: '!flags ' });
    expect(sent.at(-1)!.content).toBe(fillerText('u', 3));
    const reply = await outlet(flagged.history.slice(0, -1), 'show', 'Sure.');
    const line = reply.split('\n').find((text) => text.startsWith(FLAGS_LINE_PREFIX));
    expect(reply.startsWith('Sure.')).toBe(true);
    expect(line).toMatch(/\+keep_tag=decision/);
    expect(line).toMatch(/\+recent=6/);
    expect(line).toMatch(/pinned: 1 message/);
  });

  it('a combined block `!recent=4,+pin,-nosum Explain…` applies every item and only the block is stripped', async () => {
    await setValves({ recent: 1, max_tokens: 520 });
    // Longer than an ordinary message, so it never just fills a gap the others leave.
    const explain =
      'Explain the kubernetes ingress again, step by step: why "-nosum" appears here, how the ingress controller routes each host and path to its service, which annotations set timeouts, body sizes and TLS redirects, where the certificates live, and how to roll out a new ingress rule without dropping traffic.';
    const flagged = chat('combined');
    const control = chat('combined-control');
    await flagged.turn({ prefix: '!+nosum ', topic: true, topicReply: true });
    await control.turn({ topic: true, topicReply: true });
    for (const played of [flagged, control]) {
      await played.turns(2, { topic: true, topicReply: true });
      await played.turns(5);
    }
    const sent = await flagged.turn({ prefix: '!recent=4,+pin,-nosum ', text: explain });
    const controlSent = await control.turn({ text: explain });
    expect(sent.at(-1)).toEqual({ role: 'user', content: explain });
    // recent=4 (the admin keeps 1): the last four messages, which the control partly drops for relevance.
    const lastFour = labels(control.history).slice(-5, -1); // the flag block is all that differs
    for (const name of lastFour) expect(labels(sent)).toContain(name);
    expect(lastFour.filter((name) => !labels(controlSent).includes(name)).length).toBeGreaterThan(0);
    // +pin: the message stays on later turns; the control forgets it.
    for (let turn = 0; turn < 8; turn++) {
      const later = await flagged.turn();
      const controlLater = await control.turn();
      expect(later.map((message) => message.content)).toContain(explain);
      if (turn >= 5) expect(controlLater.map((message) => message.content)).not.toContain(explain);
    }
    // -nosum removed the persistent +nosum; the pin is listed.
    await flagged.turn({ prefix: '!flags ' });
    const line = (await outlet(flagged.history.slice(0, -1), 'combined', 'ok')).split('\n').at(-1)!;
    expect(line.startsWith(FLAGS_LINE_PREFIX)).toBe(true);
    expect(line).not.toMatch(/nosum/);
    expect(line).toMatch(/pinned: 1 message/);
  });

  it('!-key removes a persistent flag on a later turn: the selection is the control’s again', async () => {
    await setValves();
    const flagged = chat('remove');
    const control = chat('remove-control');
    await flagged.turns(6);
    await control.turns(6);
    const withFlags = await flagged.turn({ prefix: '!+context=2,+recent=2 ' });
    await control.turn();
    expect(withFlags.filter((message) => message.role === 'user')).toHaveLength(2);
    const stillOn = await flagged.turns(2);
    await control.turns(2);
    for (const sent of stillOn) expect(sent.filter((message) => message.role === 'user')).toHaveLength(2);
    const contextOff = await flagged.turn({ prefix: '!-context,-recent ' });
    const controlSent = await control.turn();
    expect(labels(contextOff)).toEqual(labels(controlSent));
    expect(contextOff.filter((message) => message.role === 'user').length).toBeGreaterThan(2);
  });
});
