import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_FILTER_FILES } from '../../src/runtime/host/isolation/shipped-filters.js';
import { createTestRuntime, repoRoot, type TestRuntime } from '../helpers/create-test-runtime.js';
import {
  chatInletBody,
  legacyOutletBody,
  multimodalInletBody,
  openWebUiUser,
  taskInletBody,
} from '../fixtures/openwebui-bodies.js';

/**
 * Every shipped file is written one way: imports from `eunoe` and `eunoe/shipped` only, one default export and nothing
 * else — a feature's factory called with its defaults (`export default createContextFilter()`) or, for the examples,
 * `export default defineFilter({...})` as a user writes one.
 */
describe('every shipped filter', () => {
  it('is listed: the files in filters/ are exactly the shipped list (an unlisted file would never load by default)', () => {
    const files = readdirSync(path.join(repoRoot, 'filters')).filter((name) => /\.[cm]?[jt]s$/.test(name));
    expect(files.sort()).toEqual([...SHIPPED_FILTER_FILES].sort());
  });

  it.each(SHIPPED_FILTER_FILES)('%s imports only the SDK entries and has a single default export', (name) => {
    const source = readFileSync(path.join(repoRoot, 'filters', name), 'utf8');
    const specifiers = [...source.matchAll(/^import\s[^;]*?from\s+'([^']+)';/gms)].map((match) => match[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((specifier) => specifier !== 'eunoe' && specifier !== 'eunoe/shipped')).toEqual([]);
    expect(source.match(/^export\s/gm)).toEqual(['export ']);
    expect(source).toMatch(/^export default (create\w+\(\)|defineFilter\(\{)/m);
  });

  it('loads from a folder outside the package through the real loader, as a filter or a pipe', async () => {
    const runtime = await createTestRuntime({ filters: [...SHIPPED_FILTER_FILES] });
    try {
      const list = (await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200)).body.data as Array<{
        id: string;
        status: string;
      }>;
      expect(list.map((entry) => [entry.id, entry.status]).sort()).toEqual(
        SHIPPED_FILTER_FILES.map((name) => [name.replace(/\.ts$/, ''), 'loaded']).sort(),
      );
      const kinds = Object.fromEntries(
        SHIPPED_FILTER_FILES.map((name) => name.replace(/\.ts$/, '')).map((id) => [id, runtime.registry.get(id)?.kind]),
      );
      expect(kinds).toEqual({
        accounting: 'filter',
        context: 'filter',
        'openai-proxy': 'pipe',
        'spend-limit': 'filter',
        'system-prefix': 'filter',
        'turn-limit': 'filter',
      });
    } finally {
      await runtime.dispose();
    }
  });
});

/** The shipped example filters, through the real loader and HTTP, with Open WebUI's bodies. */
describe('shipped filters', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['turn-limit.ts', 'system-prefix.ts'] });
  });
  afterAll(async () => runtime.dispose());

  const conversation = (turns: number) =>
    Array.from({ length: turns }, (_, turn) => [
      { role: 'user', content: `q${turn}` },
      { role: 'assistant', content: `a${turn}` },
    ])
      .flat()
      .slice(0, -1);
  const inlet = (id: string, body: Record<string, unknown>, user: Record<string, unknown> | null = openWebUiUser()) =>
    request(runtime.app).post(`/${id}/filter/inlet`).set(runtime.auth).send({ body, user });

  describe('turn-limit', () => {
    it('is off on a fresh install: long chats pass, /models advertises no target models', async () => {
      const body = { ...chatInletBody(), messages: conversation(40) };
      await inlet('turn-limit', body).expect(200, body);
      const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
      expect(models.body.data.find((model: { id: string }) => model.id === 'turn-limit').pipeline.pipelines).toEqual(
        [],
      );
    });

    it('once targeted through the admin form, it applies', async () => {
      await request(runtime.app)
        .post('/turn-limit/valves/update')
        .set(runtime.auth)
        .send({ pipelines: ['*'], priority: 0, max_turns: '3', target_user_roles: ['user', 'pending'] })
        .expect(200);
    });

    it('max_turns is used: a conversation at the limit passes unchanged and one over it gets a JSON 429', async () => {
      const atLimit = { ...chatInletBody(), messages: conversation(3) };
      await inlet('turn-limit', atLimit).expect(200, atLimit);
      const over = await inlet('turn-limit', { ...chatInletBody(), messages: conversation(4) });
      expect(over.status).toBe(429);
      expect(over.headers['content-type']).toMatch(/^application\/json/);
      expect(over.body.detail).toMatch(/4 turns and the limit is 3/);
    });

    it('applies to targeted roles only; a missing user counts as role "user"', async () => {
      const body = { ...chatInletBody(), messages: conversation(5) };
      await inlet('turn-limit', body, { ...openWebUiUser(), role: 'admin' }).expect(200, body);
      expect((await inlet('turn-limit', body, { ...openWebUiUser(), role: 'pending' })).status).toBe(429);
      expect((await inlet('turn-limit', body, null)).status).toBe(429);
    });

    it('never blocks background tasks (metadata.task)', async () => {
      const task = { ...taskInletBody(), messages: conversation(9) };
      await inlet('turn-limit', task).expect(200, task);
    });

    it('has no outlet: the outlet body comes back unchanged', async () => {
      await request(runtime.app)
        .post('/turn-limit/filter/outlet')
        .set(runtime.auth)
        .send({ body: legacyOutletBody(), user: openWebUiUser() })
        .expect(200, legacyOutletBody());
    });
  });

  describe('system-prefix', () => {
    it('without prefixes it changes nothing', async () => {
      await inlet('system-prefix', chatInletBody()).expect(200, chatInletBody());
    });

    it('puts the admin prefix, then the user prefix, in front of the system prompt', async () => {
      await request(runtime.app)
        .post('/system-prefix/valves/update')
        .set(runtime.auth)
        .send({ prefix: 'Be concise.' })
        .expect(200);
      const user = openWebUiUser();
      await request(runtime.app)
        .post('/system-prefix/valves/user/update')
        .query({ user_id: user.id })
        .set(runtime.auth)
        .send({ prefix: 'Answer in French.' })
        .expect(200);
      const response = await inlet('system-prefix', chatInletBody(), user).expect(200);
      const expected = chatInletBody();
      expected.messages[0] = {
        role: 'system',
        content: `Be concise.\nAnswer in French.\n\n${expected.messages[0]!.content}`,
      };
      expect(response.body).toStrictEqual(expected);

      // Another user gets only the admin prefix; a user who disabled theirs too.
      const other = await inlet('system-prefix', chatInletBody(), { ...user, id: 'someone-else' }).expect(200);
      expect(other.body.messages[0].content.startsWith('Be concise.\n\n')).toBe(true);
      await request(runtime.app)
        .post('/system-prefix/valves/user/update')
        .query({ user_id: user.id })
        .set(runtime.auth)
        .send({ prefix: 'Answer in French.', enabled: 'false' })
        .expect(200);
      const disabled = await inlet('system-prefix', chatInletBody(), user).expect(200);
      expect(disabled.body.messages[0].content.startsWith('Be concise.\n\n')).toBe(true);
    });

    it('adds a system message when there is none, keeping the rest of the body', async () => {
      const body = multimodalInletBody();
      const response = await inlet('system-prefix', body, null).expect(200);
      expect(response.body).toStrictEqual({
        ...body,
        messages: [{ role: 'system', content: 'Be concise.' }, ...body.messages],
      });
    });
  });
});
