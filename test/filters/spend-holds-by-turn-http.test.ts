import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { serverCaller } from '../helpers/server-calls.js';
import { deleteRedisPrefix } from '../usage/helpers/ledger-fixtures.js';

/**
 * Holds that outlive their request, over real HTTP against real server processes (the shipped spend-limit and
 * accounting filters): a $0.01 monthly cap, requests of ~$0.009 (max_tokens 900 at gpt-4o's $10 / M completion
 * tokens), replies of $0.00011 (1.1 % of the cap). One SQLite server, and one on Redis.
 *
 * Open WebUI's Pipelines inlet carries `metadata.chat_id`, `metadata.message_id` (the assistant message id) and
 * `metadata.parent_message_id` (open-webui backend/open_webui/main.py, chat_completion: `"parent_message_id":
 * form_data.pop("parent_id", None)`); the outlet carries `chat_id` and `id`. The generated Function forwards
 * `chat_id` and `message_id` only.
 */

const KEY = 'holds-by-turn-key';
const MODEL = 'openai/gpt-4o'; // bundled price table: $2.50 / M prompt, $10 / M completion tokens
const redisUrl = inject('redisUrl');

const call = serverCaller(KEY);
/** `POST route` on `server` with `body`, the API key: the status and the JSON answer. */
const post = (server: ServerProcess, route: string, body: unknown) => call(server, 'POST', route, body);

const userOf = (id: string) => ({ id, email: `${id}@example.com`, name: id, role: 'user' });

/** The inlet of one reply: `history` are the earlier messages of the chat, then the user's new question. */
function inlet(
  server: ServerProcess,
  userId: string,
  ids: { chat: string; message: string; parent?: string },
  history: Array<{ role: string; content: string }> = [],
) {
  return post(server, '/spend-limit/filter/inlet', {
    user: userOf(userId),
    body: {
      model: MODEL,
      max_tokens: 900,
      messages: [...history, { role: 'user', content: 'Hello' }],
      metadata: {
        chat_id: ids.chat,
        message_id: ids.message,
        ...(ids.parent ? { parent_message_id: ids.parent } : {}),
      },
    },
  });
}

/** The outlet of a reply of 20 prompt and 6 completion tokens ($0.00011), reported under the message id `id`. */
function outlet(server: ServerProcess, userId: string, chat: string, id: string, task?: string, model = MODEL) {
  return post(server, '/accounting/filter/outlet', {
    user: userOf(userId),
    body: {
      model,
      chat_id: chat,
      id,
      ...(task ? { metadata: { task } } : {}),
      messages: [
        { role: 'user', content: 'Hello' },
        {
          id,
          role: 'assistant',
          content: 'Hi there!',
          usage: { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 },
        },
      ],
    },
  });
}

const refusal = /^Your monthly budget of \$0\.01 has \$0\.00\d+ left, less than this request/;

describe('holds settled by the next turn of their chat', () => {
  let root: string;
  const servers: Record<string, ServerProcess> = {};
  const prefix = `eunoe-test-holds-turn-${randomBytes(4).toString('hex')}:`;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-holds-turn-'));
    const valves = path.join(root, 'valves');
    mkdirSync(valves);
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(path.join(valves, 'spend-limit.json'), JSON.stringify({ monthly_limit_usd: 0.01 }));
    const env = (name: string, extra: Record<string, string> = {}) => ({
      PIPELINES_API_KEY: KEY,
      SHIPPED_FILTERS: 'spend-limit,accounting',
      FILTERS_DIR: path.join(root, 'filters'),
      VALVES_DIR: valves,
      DATA_DIR: path.join(root, name),
      ...extra,
    });
    const [sqlite, redis] = await Promise.all([
      startServerProcess(env('sqlite')),
      redisUrl ? startServerProcess(env('redis', { REDIS_URL: redisUrl, REDIS_PREFIX: prefix })) : undefined,
    ]);
    servers.sqlite = sqlite;
    if (redis) servers.redis = redis;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    if (redisUrl) await deleteRedisPrefix(redisUrl, prefix);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  for (const backend of ['sqlite', 'redis'] as const) {
    it.runIf(backend === 'sqlite' || redisUrl)(
      `${backend}: an outlet whose message id is not the inlet's settles its chat's hold`,
      async () => {
        const server = servers[backend]!;
        const user = `${backend}-mismatch`;
        expect((await inlet(server, user, { chat: 'c1', message: 'm1', parent: 'q1' })).status).toBe(200);
        // A background task's reply (the chat's title) held nothing: it settles no hold of the chat.
        expect((await outlet(server, user, 'c1', 'title-1', 'title_generation')).status).toBe(200);
        expect((await inlet(server, user, { chat: 'c2', message: 'm0', parent: 'q0' })).status).toBe(429);
        // The reply is recorded under another id than the one its inlet held.
        expect((await outlet(server, user, 'c1', 'm1-as-reported')).status).toBe(200);
        // $0.00022 spent (2.2 % of the cap): a request in another chat fits again.
        const next = await inlet(server, user, { chat: 'c2', message: 'm2', parent: 'q2' });
        expect(next.body.detail ?? '').not.toMatch(refusal);
        expect(next.status).toBe(200);
      },
    );

    it.runIf(backend === 'sqlite' || redisUrl)(
      `${backend}: a reply of a model the caps leave out settles no capped reply's hold in its chat`,
      async () => {
        const server = servers[backend]!;
        const user = `${backend}-uncapped-model`;
        // Open WebUI sends one turn to two selected models at once: gpt-4o, whose spend-limit inlet holds ~$0.009,
        // and a model outside the spend-limit filter's `pipelines` (no inlet, no hold), which the accounting outlet
        // (every model) records when its reply ends, first, under its own message id.
        expect((await inlet(server, user, { chat: 'c1', message: 'm1', parent: 'q1' })).status).toBe(200);
        expect((await outlet(server, user, 'c1', 'm1-local', undefined, 'llama3.1:8b')).status).toBe(200);
        // gpt-4o's reply still runs and is still held: a request in another chat does not fit.
        const other = await inlet(server, user, { chat: 'c2', message: 'm2', parent: 'q2' });
        expect(other.status).toBe(429);
        expect(other.body.detail).toMatch(refusal);
        // Its own outlet settles it.
        expect((await outlet(server, user, 'c1', 'm1')).status).toBe(200);
        expect((await inlet(server, user, { chat: 'c2', message: 'm3', parent: 'q3' })).status).toBe(200);
      },
    );

    it.runIf(backend === 'sqlite' || redisUrl)(
      `${backend}: a reply with no outlet is settled by its chat's next turn, and only that`,
      async () => {
        const server = servers[backend]!;
        const user = `${backend}-no-outlet`;
        // The Function's shape: no parent message id, the turn is the count of user messages.
        expect((await inlet(server, user, { chat: 'c1', message: 'm1' })).status).toBe(200);
        // The reply was stopped: no outlet. The chat's next turn passes.
        const history = [
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Hi' },
        ];
        expect((await inlet(server, user, { chat: 'c1', message: 'm2' }, history)).status).toBe(200);
        // That turn is in flight: a request in another chat does not fit.
        const other = await inlet(server, user, { chat: 'c2', message: 'm3' });
        expect(other.status).toBe(429);
        expect(other.body.detail).toMatch(refusal);
        // The late outlet of the first reply settles its own (already settled) hold, not the turn in flight.
        expect((await outlet(server, user, 'c1', 'm1')).status).toBe(200);
        expect((await inlet(server, user, { chat: 'c2', message: 'm4' })).status).toBe(429);
      },
    );

    it.runIf(backend === 'sqlite' || redisUrl)(
      `${backend}: turns of one chat sent at once free one request's room, not one per turn`,
      async () => {
        const server = servers[backend]!;
        const user = `${backend}-turns-at-once`;
        const turns = await Promise.all(
          ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].map((parent, index) =>
            inlet(server, user, { chat: 'c1', message: `m${index}`, parent }),
          ),
        );
        // Room for one ~$0.009 request; the turn that comes second may end the first one's hold, no more.
        expect(turns.filter((turn) => turn.status === 200).length).toBeLessThanOrEqual(2);
        for (const turn of turns.filter((each) => each.status !== 200)) expect(turn.body.detail).toMatch(refusal);
      },
    );
  }
});
