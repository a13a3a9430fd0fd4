import type http from 'node:http';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenWebuiGroups } from '../../../src/runtime/host/open-webui-groups.js';
import { createTestRuntime, type TestRuntime } from '../../helpers/create-test-runtime.js';
import { listenOnLoopback, type LoopbackHttp } from '../../helpers/loopback-server.js';
import { filterSource } from '../../server/helpers/filter-source.js';
import { captureLogger } from '../../state/helpers/capture-logger.js';
import { waitFor } from '../../helpers/wait-for.js';

const ADMIN_KEY = 'sk-owui-admin-0123';

/**
 * Open WebUI's groups API as its backend answers it (backend/open_webui/routers/groups.py, v0.9+ async data layer,
 * mounted at /api/v1/groups): `GET /` lists GroupResponse objects (no members, a `member_count`);
 * `GET /id/{id}/export` adds `user_ids`. `legacy` answers as versions before the group_member table did: `user_ids`
 * in the list itself. Anything without the admin's Bearer key is a 401 (`get_admin_user`).
 */
function openWebui(
  groups: Array<{ id: string; name: string; user_ids: string[] }>,
  options: { legacy?: boolean } = {},
) {
  const calls: string[] = [];
  const handler: http.RequestListener = (req, res) => {
    calls.push(`${req.method} ${req.url}`);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${ADMIN_KEY}`) return json(401, { detail: 'Not authenticated' });
    const record = (group: (typeof groups)[number]) => ({
      id: group.id,
      user_id: 'admin-1',
      name: group.name,
      description: '',
      data: { config: { share: true } },
      meta: null,
      permissions: {},
      created_at: 1767225600,
      updated_at: 1767225600,
      member_count: group.user_ids.length,
      ...(options.legacy ? { user_ids: group.user_ids } : {}),
    });
    if (req.method === 'GET' && req.url === '/api/v1/groups/') return json(200, groups.map(record));
    const exported = /^\/api\/v1\/groups\/id\/([^/]+)\/export$/.exec(req.url ?? '');
    const group = exported ? groups.find((item) => item.id === decodeURIComponent(exported[1]!)) : undefined;
    if (req.method === 'GET' && group) return json(200, { ...record(group), user_ids: group.user_ids });
    return json(404, { detail: 'Not Found' });
  };
  return { handler, calls };
}

/** A filter that reports the groups its hooks see. */
const groupsEcho = filterSource(`export default defineFilter({
  name: 'Groups echo',
  inlet: ({ body, user }) => ({ ...body, seen_groups: user?.groups ?? null }),
});`);

const GROUPS = [
  { id: 'g-eng', name: 'Engineering', user_ids: ['alice', 'bob'] },
  { id: 'g-sales', name: 'Sales', user_ids: ['alice'] },
];

describe("a user's groups on the Pipelines connection, read from Open WebUI's groups API", () => {
  let owui: LoopbackHttp;
  let api: ReturnType<typeof openWebui>;
  let runtime: TestRuntime;

  beforeAll(async () => {
    api = openWebui(GROUPS);
    owui = await listenOnLoopback(api.handler);
    runtime = await createTestRuntime({
      sources: { 'groups-echo.ts': groupsEcho },
      env: { OPENWEBUI_URL: owui.origin, OPENWEBUI_API_KEY: ADMIN_KEY },
    });
  });
  afterAll(async () => {
    await runtime?.dispose();
    await owui?.close();
  });

  const inlet = (user: Record<string, unknown>) =>
    request(runtime.app)
      .post('/groups-echo/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, user })
      .expect(200);

  it('fills user.groups (id and name) before the hooks run, reading each group once and caching them', async () => {
    const alice = await inlet({ id: 'alice', email: 'alice@example.com', name: 'Alice', role: 'user' });
    expect(alice.body.seen_groups).toEqual([
      { id: 'g-eng', name: 'Engineering' },
      { id: 'g-sales', name: 'Sales' },
    ]);
    const bob = await inlet({ id: 'bob', email: 'bob@example.com', name: 'Bob', role: 'user' });
    expect(bob.body.seen_groups).toEqual([{ id: 'g-eng', name: 'Engineering' }]);
    const carol = await inlet({ id: 'carol', role: 'user' });
    expect(carol.body.seen_groups).toEqual([]);
    // One list and one export per group, for all three requests (the cache answers the later ones).
    expect(api.calls.sort()).toEqual([
      'GET /api/v1/groups/',
      'GET /api/v1/groups/id/g-eng/export',
      'GET /api/v1/groups/id/g-sales/export',
    ]);
  });

  it('keeps the groups a caller sent (the Function sends them itself)', async () => {
    const sent = await inlet({ id: 'alice', role: 'user', groups: [{ id: 'g-x', name: 'X' }] });
    expect(sent.body.seen_groups).toEqual([{ id: 'g-x', name: 'X' }]);
  });
});

describe('the groups reader', () => {
  const servers: LoopbackHttp[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it('reads the user ids from the list itself where Open WebUI puts them there (versions before group_member)', async () => {
    const api = openWebui(GROUPS, { legacy: true });
    const server = await listenOnLoopback(api.handler);
    servers.push(server);
    const groups = new OpenWebuiGroups({ url: server.origin, apiKey: ADMIN_KEY, logger: captureLogger().logger });
    expect(await groups.groupsOf('alice')).toEqual([
      { id: 'g-eng', name: 'Engineering' },
      { id: 'g-sales', name: 'Sales' },
    ]);
    expect(api.calls).toEqual(['GET /api/v1/groups/']);
  });

  it('refreshes after the refresh interval: a member added in Open WebUI shows up', async () => {
    const members = [{ id: 'g-eng', name: 'Engineering', user_ids: ['alice'] }];
    const api = openWebui(members);
    const server = await listenOnLoopback(api.handler);
    servers.push(server);
    let now = 1_000_000;
    const groups = new OpenWebuiGroups({
      url: server.origin,
      apiKey: ADMIN_KEY,
      logger: captureLogger().logger,
      refreshMs: 300_000,
      now: () => now,
    });
    expect(await groups.groupsOf('dave')).toEqual([]);
    members[0]!.user_ids.push('dave');
    now += 299_000;
    expect(await groups.groupsOf('dave')).toEqual([]); // still fresh
    now += 2_000;
    // The next call starts the refresh and answers from the cache meanwhile; the refreshed groups follow.
    expect(await groups.groupsOf('dave')).toEqual([]);
    const refreshed = await waitFor(() => groups.groupsOf('dave'), { until: (found) => (found?.length ?? 0) > 0 });
    expect(refreshed).toEqual([{ id: 'g-eng', name: 'Engineering' }]);
    expect(api.calls.filter((call) => call === 'GET /api/v1/groups/')).toHaveLength(2);
  });

  it('a wrong key: one clear warning, groups unknown, and no second line while it keeps failing', async () => {
    const api = openWebui(GROUPS);
    const server = await listenOnLoopback(api.handler);
    servers.push(server);
    const { logger, lines } = captureLogger();
    let now = 0;
    const groups = new OpenWebuiGroups({ url: server.origin, apiKey: 'sk-not-admin', logger, now: () => now });
    expect(await groups.groupsOf('alice')).toBeUndefined();
    now += 60_000; // past the retry wait: a second read, awaited as the first (nothing read yet)
    expect(await groups.groupsOf('alice')).toBeUndefined();
    expect(api.calls).toEqual(['GET /api/v1/groups/', 'GET /api/v1/groups/']);
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain(`cannot read the users' groups from Open WebUI at ${server.origin}`);
    expect(warnings[0]!.msg).toContain('requests still run');
    expect(String(warnings[0]!.err)).toContain('HTTP 401 (OPENWEBUI_API_KEY must be an admin key)');
  });

  it('Open WebUI that never answers: the first request goes on without groups, then one warning', async () => {
    const hung = await listenOnLoopback(() => undefined); // accepts, never answers
    servers.push(hung);
    const { logger, lines } = captureLogger();
    const groups = new OpenWebuiGroups({ url: hung.origin, apiKey: ADMIN_KEY, logger, timeoutMs: 300 });
    expect(await groups.groupsOf('alice')).toBeUndefined();
    await waitFor(() => lines.filter((line) => line.level === 40), { until: (found) => found.length === 1 });
    expect(String(lines.find((line) => line.level === 40)!.msg)).toContain("cannot read the users' groups");
  });

  it('Open WebUI unreachable: requests still run, their hooks see no groups', async () => {
    const dead = await listenOnLoopback((_req, res) => res.end());
    const origin = dead.origin;
    await dead.close();
    const runtime = await createTestRuntime({
      sources: { 'groups-echo.ts': groupsEcho },
      env: { OPENWEBUI_URL: origin, OPENWEBUI_API_KEY: ADMIN_KEY },
    });
    try {
      const answer = await request(runtime.app)
        .post('/groups-echo/filter/inlet')
        .set(runtime.auth)
        .send({ body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, user: { id: 'alice' } })
        .expect(200);
      expect(answer.body.seen_groups).toBeNull();
    } finally {
      await runtime.dispose();
    }
  });
});
