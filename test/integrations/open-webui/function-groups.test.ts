import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestRuntime, TEST_API_KEY, type TestRuntime } from '../../helpers/create-test-runtime.js';
import { listenOnLoopback, type LoopbackHttp } from '../../helpers/loopback-server.js';
import { filterSource } from '../../server/helpers/filter-source.js';
import { runFunction, type Json } from './run-loader.js';

const STUBS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stubs');

/** A filter that reports the groups its hooks see. */
const groupsEcho = filterSource(`export default defineFilter({
  name: 'Groups echo',
  inlet: ({ body, user }) => ({ ...body, seen_groups: user?.groups ?? null }),
});`);

/** Rows of Open WebUI's `group` table as GroupModel validates them. */
const group = (id: string, name: string) => ({
  id,
  user_id: 'admin-1',
  name,
  description: `${name} team`,
  data: { config: { share: true } },
  meta: null,
  permissions: { workspace: { models: false } },
  created_at: 1767225600,
  updated_at: 1767225600,
});

/** A copy of the stub `open_webui` package of `version` whose database holds `memberships`. */
function openWebuiModules(version: 'v0.9' | 'v0.6', memberships: Json): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-owui-modules-'));
  cpSync(path.join(STUBS, version), dir, { recursive: true });
  writeFileSync(path.join(dir, 'open_webui', 'models', 'memberships.json'), JSON.stringify(memberships));
  return dir;
}

const alice = { id: 'alice', email: 'alice@example.com', name: 'Alice', role: 'user', settings: {}, info: null };
const body = () => ({
  model: 'openai/gpt-4o',
  messages: [{ role: 'user', content: 'Hello' }],
  metadata: { chat_id: 'c1', message_id: 'm1', task: null },
});

describe("the generated Function sends the user's Open WebUI groups (read with open_webui.models.groups)", () => {
  let runtime: TestRuntime;
  let server: LoopbackHttp;
  let source: string;
  let valves: Json;
  const memberships = {
    alice: [group('g-eng', 'Engineering'), group('g-sales', 'Sales')],
  };

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['spend-limit.ts'], sources: { 'groups-echo.ts': groupsEcho } });
    server = await listenOnLoopback(runtime.app);
    const file = await fetch(`${server.origin}/integrations/open-webui/function.py`, {
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    source = await file.text();
    valves = { eunoe_url: server.origin, eunoe_api_key: TEST_API_KEY, timeout_s: 20 };
  });
  afterAll(async () => {
    await server?.close();
    await runtime?.dispose();
  });

  it('v0.9+ (async Groups.get_groups_by_member_id): hooks see user.groups as [{id, name}]', async () => {
    const result = await runFunction(source, valves, [{ hook: 'inlet', body: body(), user: alice }], {
      pythonPath: [openWebuiModules('v0.9', memberships)],
    });
    expect(result.steps[0]!.ok).toBe(true);
    expect(result.steps[0]!.body!.seen_groups).toEqual([
      { id: 'g-eng', name: 'Engineering' },
      { id: 'g-sales', name: 'Sales' },
    ]);
  });

  it('v0.6–0.8 (synchronous data layer): the same groups', async () => {
    const result = await runFunction(source, valves, [{ hook: 'inlet', body: body(), user: alice }], {
      pythonPath: [openWebuiModules('v0.6', memberships)],
    });
    expect(result.steps[0]!.body!.seen_groups).toEqual([
      { id: 'g-eng', name: 'Engineering' },
      { id: 'g-sales', name: 'Sales' },
    ]);
  });

  it('a user in no group: an empty list (known to be in none)', async () => {
    const result = await runFunction(source, valves, [{ hook: 'inlet', body: body(), user: { ...alice, id: 'bob' } }], {
      pythonPath: [openWebuiModules('v0.9', memberships)],
    });
    expect(result.steps[0]!.body!.seen_groups).toEqual([]);
  });

  it('without open_webui.models.groups the Function still loads and runs; no groups are sent', async () => {
    const result = await runFunction(source, valves, [{ hook: 'inlet', body: body(), user: alice }]);
    expect(result.kind).toBe('filter');
    expect(result.steps[0]!.ok).toBe(true);
    expect(result.steps[0]!.body!.seen_groups).toBeNull();
  });

  it('a failing groups read does not stop the chat: no groups are sent', async () => {
    const result = await runFunction(source, valves, [{ hook: 'inlet', body: body(), user: alice }], {
      pythonPath: [openWebuiModules('v0.9', { __fail__: true })],
    });
    expect(result.steps[0]!.ok).toBe(true);
    expect(result.steps[0]!.body!.seen_groups).toBeNull();
  });

  it("a group's rate limit applies to the groups the Function sent; the refusal is shown in the chat", async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // on Eunoe's side (this process): all three calls in one minute
    vi.setSystemTime(Date.parse('2026-12-05T10:00:20Z'));
    try {
      await request(runtime.app)
        .post('/spend-limit/valves/update')
        .set(runtime.auth)
        .send({ rate_limits: { roles: { user: 1 }, groups: { Engineering: 2 } } })
        .expect(200);
      const steps = ['r1', 'r2', 'r3'].map((id) => ({
        hook: 'inlet' as const,
        body: { ...body(), metadata: { chat_id: `c-${id}`, message_id: id, task: null } },
        user: alice,
      }));
      const result = await runFunction(source, valves, steps, {
        pythonPath: [openWebuiModules('v0.9', memberships)],
      });
      expect(result.steps.map((step) => step.ok)).toEqual([true, true, false]);
      expect(result.steps[2]!.error).toMatch(
        /^Too many requests: at most 2 per minute for your group Engineering\. Try again in \d+ s\.$/,
      );
    } finally {
      vi.useRealTimers();
      await request(runtime.app).post('/spend-limit/valves/update').set(runtime.auth).send({ rate_limits: {} });
    }
  });
});
