import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunHead, RunRecord } from '../../src/features/context/runs/run-record.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { fillerText } from '../filters/helpers/flag-chats.js';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';

/**
 * Run records through real inlets of the context filter on a real runtime (SQLite state), read back through
 * GET /runs and GET /runs/:id: what a run says agrees with what the inlet returned; the key rules, paging, unknown
 * chats and ids, the `inspect` modes, per-chat retention, and the admin's link in the status line.
 */
const DASHBOARD_KEY = 'dashboard-read-only-key';
const MAX = 700;

describe('run records over HTTP', () => {
  let runtime: TestRuntime;
  const get = (path: string, key?: string) =>
    request(runtime.app)
      .get(path)
      .set(key === undefined ? runtime.auth : { Authorization: `Bearer ${key}` });
  const setValves = async (values: Record<string, string | number>) => {
    const form = { max_tokens: MAX, recent: 2, algorithm: 'recency', weighting: 'keyword', ...values };
    const fields = Object.fromEntries(Object.entries(form).map(([key, value]) => [key, String(value)]));
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send(fields).expect(200);
  };
  /** A chat of `turns` user/assistant pairs about filler, then `question`. */
  const chat = (turns: number, question = 'What did we decide about the budget?'): ChatMessage[] => [
    { role: 'system', content: 'You are a helpful assistant.' },
    ...Array.from({ length: turns }, (_, turn): ChatMessage[] => [
      { role: 'user', content: fillerText('u', turn) },
      { role: 'assistant', content: fillerText('a', turn) },
    ]).flat(),
    { role: 'user', content: question },
  ];
  const inlet = async (messages: ChatMessage[], chatId: string, user = 'u1', role = 'user') => {
    const response = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages, metadata: { chat_id: chatId } }, user: { id: user, role } })
      .expect(200);
    return response.body.messages as ChatMessage[];
  };
  /** The runs of a chat once `count` are there (a read writes the buffered records first). */
  const runsOf = async (chatId: string, count: number): Promise<RunHead[]> => {
    let runs: RunHead[] = [];
    await waitFor(
      async () => {
        runs = (await get(`/runs?chat=${encodeURIComponent(chatId)}`).expect(200)).body.runs as RunHead[];
        return runs.length >= count;
      },
      { timeoutMs: 30_000 },
    );
    return runs;
  };

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'], env: { DASHBOARD_API_KEY: DASHBOARD_KEY } });
    await setValves({});
  });
  afterAll(async () => runtime.dispose());

  it('records each inlet: every message with the disposition the inlet acted on, totals, budget and flags', async () => {
    const messages = chat(12);
    const sent = await inlet(messages, 'chat-a');
    expect(sent.length).toBeLessThan(messages.length); // the budget trimmed it
    const [head] = await runsOf('chat-a', 1);
    expect(head).toMatchObject({ chat: 'chat-a', user: 'u1', model: 'gpt-4o', inspect: 'structure' });
    expect(head!.budget).toMatchObject({ limitTokens: MAX, source: 'valve' });
    const run = (await get(`/runs/${head!.id}`).expect(200)).body as RunRecord;
    expect(run.messages).toHaveLength(messages.length);
    // Exactly the messages the inlet sent are kept, in order; the others dropped, each with a reason.
    const keptContents = run.messages
      .filter((message) => message.disposition === 'kept' || message.disposition === 'pinned')
      .map((message) => messages[message.index]!.content);
    expect(keptContents).toEqual(sent.map((message) => message.content));
    for (const message of run.messages.filter((entry) => entry.disposition === 'dropped'))
      expect(message).toMatchObject({ cause: 'budget', reason: 'over budget' });
    expect(run.messages[0]).toMatchObject({ role: 'system', cause: 'system' });
    expect(run.messages.at(-1)).toMatchObject({ disposition: 'kept', cause: 'current' });
    expect(run.totals).toMatchObject({
      messages: messages.length,
      kept: sent.length,
      dropped: messages.length - sent.length,
    });
    expect(run.totals.tokensAfter).toBeLessThanOrEqual(MAX);
    expect(run.totals.tokensBefore).toBeGreaterThan(MAX);
    // Structure mode: no message text anywhere in the record.
    const body = JSON.stringify(run);
    for (const message of messages) expect(body).not.toContain(String(message.content).slice(0, 30));
  });

  it('a flag in force is recorded with the messages it left out, and the budget it set', async () => {
    const messages = chat(6, '!context=1,target=600 Where were we?');
    await inlet(messages, 'chat-flags');
    const [head] = await runsOf('chat-flags', 1);
    expect(head!.flags).toMatchObject({ context: 1, target: 600 });
    expect(head!.budget.source).toBe('!target');
    const run = (await get(`/runs/${head!.id}`).expect(200)).body as RunRecord;
    expect(run.messages[1]).toMatchObject({ disposition: 'dropped', cause: 'flag', reason: 'outside !context=1' });
  });

  it('lists newest first and pages with limit and before; filters by user and model; an unknown chat has none', async () => {
    for (let turn = 0; turn < 5; turn++) await inlet(chat(2 + turn), 'chat-pages', turn % 2 ? 'u-odd' : 'u-even');
    const all = await runsOf('chat-pages', 5);
    const first = (await get('/runs?chat=chat-pages&limit=2').expect(200)).body as { runs: RunHead[]; next: string };
    expect(first.runs.map((run) => run.id)).toEqual(all.slice(0, 2).map((run) => run.id));
    expect(first.runs[0]!.time).toBeGreaterThanOrEqual(first.runs[1]!.time);
    const second = (await get(`/runs?chat=chat-pages&limit=2&before=${first.next}`).expect(200)).body;
    expect(second.runs.map((run: RunHead) => run.id)).toEqual(all.slice(2, 4).map((run) => run.id));
    const third = (await get(`/runs?chat=chat-pages&limit=2&before=${second.next}`).expect(200)).body;
    expect(third.runs.map((run: RunHead) => run.id)).toEqual([all[4]!.id]);
    expect(third.next).toBeNull();
    const odd = (await get('/runs?user=u-odd&limit=500').expect(200)).body.runs as RunHead[];
    expect(odd.map((run) => run.id)).toEqual(all.filter((run) => run.user === 'u-odd').map((run) => run.id));
    expect(odd).toHaveLength(2);
    expect((await get('/runs?model=no-such-model').expect(200)).body).toEqual({ runs: [], next: null });
    expect((await get('/runs?chat=no-such-chat').expect(200)).body).toEqual({ runs: [], next: null });
  });

  it('bad queries and unknown runs are clear JSON errors', async () => {
    const unknown = await get('/runs/00000000a-00000000').expect(404);
    expect(unknown.body.detail).toMatch(/No run/);
    await get('/runs/not-a-run-id').expect(404);
    for (const query of ['limit=0', 'limit=501', 'limit=abc', 'before=yesterday']) {
      const response = await get(`/runs?${query}`).expect(400);
      expect(response.body.detail).toMatch(/^Invalid query: (limit|before): /);
    }
    expect((await get('/runs?chat_id=x').expect(400)).body.detail).toMatch(/Unknown query parameter "chat_id"/);
    expect((await get('/runs/00000000a-00000000?x=1').expect(400)).body.detail).toMatch(/Unknown query parameter "x"/);
  });

  it('needs the API key; the read-only dashboard key may read runs and nothing more', async () => {
    await inlet(chat(3), 'chat-keys');
    const [head] = await runsOf('chat-keys', 1);
    await request(runtime.app).get('/runs').expect(401);
    await get('/runs', 'wrong-key').expect(401);
    await get('/runs?chat=chat-keys', DASHBOARD_KEY).expect(200);
    await get(`/runs/${head!.id}`, DASHBOARD_KEY).expect(200);
    await get(`/v1/runs/${head!.id}`, DASHBOARD_KEY).expect(200);
    await request(runtime.app)
      .post('/context/filter/inlet')
      .set({ Authorization: `Bearer ${DASHBOARD_KEY}` })
      .send({ body: { model: 'gpt-4o', messages: chat(1) }, user: { id: 'u1' } })
      .expect(403);
  });

  it('inspect=preview keeps each message’s first 120 characters; inspect=off records nothing', async () => {
    await setValves({ inspect: 'preview' });
    const messages = chat(4);
    await inlet(messages, 'chat-preview');
    const [head] = await runsOf('chat-preview', 1);
    const run = (await get(`/runs/${head!.id}`).expect(200)).body as RunRecord;
    expect(run.inspect).toBe('preview');
    for (const message of run.messages)
      expect(message.preview).toBe(String(messages[message.index]!.content).replace(/\s+/g, ' ').trim().slice(0, 120));
    await setValves({ inspect: 'off' });
    await inlet(messages, 'chat-off');
    // A later run (with inspect back on) proves the earlier inlet had its chance to be recorded.
    await setValves({ inspect: 'structure' });
    await inlet(messages, 'chat-after-off');
    await runsOf('chat-after-off', 1);
    expect((await get('/runs?chat=chat-off').expect(200)).body.runs).toEqual([]);
  });

  it('keeps the latest inspect_runs_per_chat runs of a chat', async () => {
    await setValves({ inspect_runs_per_chat: 2 });
    for (let turn = 0; turn < 4; turn++) await inlet(chat(2 + turn), 'chat-retained');
    await inlet(chat(2), 'chat-retention-fence');
    await runsOf('chat-retention-fence', 1);
    const runs = (await get('/runs?chat=chat-retained').expect(200)).body.runs as RunHead[];
    expect(runs.map((run) => run.totals.messages)).toEqual([12, 10]); // the two newest: 5 and 4 turns
    await setValves({ inspect_runs_per_chat: 20 });
  });

  it('an admin’s status line links to the run when inspect_url is set; other users get no link', async () => {
    await setValves({ inspect_url: 'https://eunoe.example/' });
    const statusOf = async (role: string) => {
      const response = await request(runtime.app)
        .post('/integrations/open-webui/inlet')
        .set(runtime.auth)
        .send({
          body: { model: 'gpt-4o', messages: chat(5), metadata: { chat_id: `chat-link-${role}` } },
          user: { id: 'a1', role },
        })
        .expect(200);
      const events = response.body.events as Array<{ type: string; data: { description?: string } }>;
      return events.find((event) => event.data.description?.startsWith('context:'))!.data.description!;
    };
    const admin = await statusOf('admin');
    const link = /· run https:\/\/eunoe\.example\/dashboard#runs\/([0-9a-z]{9}-[0-9a-f]{8})$/.exec(admin);
    expect(link).not.toBeNull();
    await waitFor(async () => (await get(`/runs/${link![1]}`)).status === 200, { timeoutMs: 30_000 });
    expect(await statusOf('user')).not.toMatch(/run https/);
    await setValves({ inspect_url: '' });
  });

  it('an admin’s context note carries the same link, and the next inlet strips the note, link included', async () => {
    await setValves({ inspect_url: 'https://eunoe.example', show_context_note: 'true' });
    const history = chat(5);
    const admin = { id: 'a2', role: 'admin' };
    await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages: history, metadata: { chat_id: 'chat-note-link' } }, user: admin })
      .expect(200);
    const [head] = await runsOf('chat-note-link', 1);
    const replied = await request(runtime.app)
      .post('/context/filter/outlet')
      .set(runtime.auth)
      .send({
        body: {
          model: 'gpt-4o',
          chat_id: 'chat-note-link',
          messages: [...history, { role: 'assistant', content: 'Sure.' }],
        },
        user: admin,
      })
      .expect(200);
    const reply = (replied.body.messages as ChatMessage[]).at(-1)!.content as string;
    expect(reply.split('\n').at(-1)).toMatch(
      new RegExp(`^context: .* · run https://eunoe\\.example/dashboard#runs/${head!.id}$`),
    );
    // The next turn: the note (and its link) is removed before planning, so the model never sees it.
    const next = [
      ...history,
      { role: 'assistant' as const, content: reply },
      { role: 'user' as const, content: 'More?' },
    ];
    const sent = await inlet(next, 'chat-note-link', 'a2', 'admin');
    expect(sent.map((message) => String(message.content)).join('\n')).not.toContain('eunoe.example');
    await setValves({ inspect_url: '', show_context_note: 'false' });
  });

  it('a clean stop writes the buffered runs: a run recorded just before a restart is there after it', async () => {
    const stamp = Date.now();
    await inlet(chat(3), 'chat-before-stop');
    // Straight to the restart (well within the buffer's flush interval): close writes the buffer before the store.
    runtime = await runtime.restart();
    const runs = (await get('/runs?chat=chat-before-stop').expect(200)).body.runs as RunHead[];
    expect(runs).toHaveLength(1);
    expect(runs[0]!.time).toBeGreaterThanOrEqual(stamp - 1000);
  });
});
