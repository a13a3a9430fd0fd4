import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { SHIPPED_FILTER_FILES } from '../../src/runtime/host/isolation/shipped-filters.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { repoRoot } from '../helpers/create-test-runtime.js';
import { startServerProcess } from '../helpers/server-process.js';
import { captureLogger } from '../state/helpers/capture-logger.js';

/** A filter as a user writes it in their own folder: the SDK by package name, no package.json around it. */
const greet = `import { baseValves, defineFilter, z } from 'eunoe';

export default defineFilter({
  name: 'Greet',
  valves: baseValves.extend({
    pipelines: z.array(z.string()).default(['*']),
    greeting: z.string().default('hello'),
  }),
  inlet: ({ body, valves }) => ({ ...body, greeting: valves.greeting }),
  outlet: ({ body }) => ({ ...body, greeted: true }),
});
`;

/** A user's own filter under a shipped filter's name. */
const myTurnLimit = `import { defineFilter } from 'eunoe';
export default defineFilter({ name: 'My Turn Limit', inlet: ({ body }) => ({ ...body, mine: true }) });
`;

/** A user's filter built on a shipped feature's parts, as TypeScript: both entries by package name. */
const contextAware = `import { defineFilter } from 'eunoe';
import { contextValves } from 'eunoe/shipped';

const defaults = contextValves.parse({});
export default defineFilter({
  name: 'Context Aware',
  inlet: ({ body }) => ({ ...body, contextPriority: defaults.priority }),
});
`;

/** A user's own spend-limit filter from the shipped factory, as plain JavaScript (no package.json says it is ESM). */
const mySpendLimit = `import { createSpendLimitFilter } from 'eunoe/shipped';

export default { ...createSpendLimitFilter(), name: 'My Spend Limit' };
`;

const KEY = 'external-filters-key-1';
const auth = { Authorization: `Bearer ${KEY}` };
const SHIPPED_IDS = SHIPPED_FILTER_FILES.map((name) => name.replace(/\.ts$/, '')).sort();

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A folder outside the repository (the OS temp dir), holding `files`, with no package.json. */
function outsideFolder(files: Record<string, string>): { root: string; filtersDir: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-outside-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  expect(path.relative(repoRoot, root).startsWith('..')).toBe(true);
  const filtersDir = path.join(root, 'mounted-filters');
  mkdirSync(filtersDir);
  for (const [name, source] of Object.entries(files)) writeFileSync(path.join(filtersDir, name), source);
  return { root, filtersDir };
}

async function runtimeFor(filtersDir: string, env: Record<string, string> = {}) {
  const captured = captureLogger();
  const root = path.dirname(filtersDir);
  const config = loadConfig(
    {
      FILTER_LOAD_TIMEOUT_MS: '60000', // a liveness bound for worker imports on a busy machine
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: filtersDir,
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
      WATCH_FILTERS: 'false',
      PRICING_FETCH: 'false',
      ...env,
    },
    root,
  );
  const runtime: Runtime = await createRuntime({ config, logger: captured.logger, watch: false });
  cleanups.push(() => runtime.close());
  return { runtime, lines: captured.lines };
}

const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
/**
 * For the tests of which file wins (user or shipped) and which are chosen: their user files run in the
 * test's thread (a worker each costs tsx, zod and the SDK). Where they run and how `eunoe` resolves
 * there is the first test's subject (a worker) and the server process test's (the main thread).
 */
const IN_THIS_THREAD = { FILTER_ISOLATION: 'off' };

describe('filters outside the repository', () => {
  it('a filter importing the SDK by package name loads from an outside folder and runs; the shipped filters load beside it', async () => {
    const { filtersDir } = outsideFolder({ 'greet.ts': greet });
    const { runtime } = await runtimeFor(filtersDir);
    const list = (await request(runtime.app).get('/pipelines').set(auth).expect(200)).body.data as Array<
      Record<string, unknown>
    >;
    expect(list.filter((entry) => entry.status === 'failed')).toEqual([]);
    expect(list.map((entry) => entry.id).sort()).toEqual([...SHIPPED_IDS, 'greet'].sort());
    expect(list.find((entry) => entry.id === 'greet')).toMatchObject({
      status: 'loaded',
      origin: 'user',
      path: path.join(filtersDir, 'greet.ts'),
      isolation: 'worker', // a user file runs in a worker thread: Node's real resolution, not the test runner's
    });
    for (const id of SHIPPED_IDS)
      expect(list.find((entry) => entry.id === id)).toMatchObject({
        origin: 'package',
        path: path.join(repoRoot, 'filters', `${id}.ts`),
      });
    const inlet = await request(runtime.app)
      .post('/greet/filter/inlet')
      .set(auth)
      .send({ body: chat, user: { id: 'u1' } })
      .expect(200);
    expect(inlet.body).toMatchObject({ greeting: 'hello' });
    await request(runtime.app)
      .post('/greet/valves/update')
      .set(auth)
      .send({ pipelines: ['*'], priority: 0, greeting: 'hi there' })
      .expect(200);
    const again = await request(runtime.app).post('/greet/filter/inlet').set(auth).send({ body: chat }).expect(200);
    expect(again.body.greeting).toBe('hi there');
    const outlet = await request(runtime.app).post('/greet/filter/outlet').set(auth).send({ body: chat }).expect(200);
    expect(outlet.body.greeted).toBe(true);
    // The shipped filters work from the package (the context filter plans this chat).
    await request(runtime.app).post('/context/filter/inlet').set(auth).send({ body: chat }).expect(200);
  });

  it('a user file with a shipped filter’s name overrides it (with a log line); deleting it brings the shipped one back', async () => {
    const { filtersDir } = outsideFolder({ 'turn-limit.ts': myTurnLimit });
    const { runtime, lines } = await runtimeFor(filtersDir, {
      SHIPPED_FILTERS: 'turn-limit,system-prefix',
      ...IN_THIS_THREAD,
    });
    const list = (await request(runtime.app).get('/pipelines').set(auth).expect(200)).body.data;
    expect(list.map((entry: { id: string }) => entry.id).sort()).toEqual(['system-prefix', 'turn-limit']);
    expect(list.find((entry: { id: string }) => entry.id === 'turn-limit')).toMatchObject({
      name: 'My Turn Limit',
      origin: 'user',
    });
    expect(lines.some((line) => /shipped filter turn-limit is overridden/.test(line.msg))).toBe(true);
    const mine = await request(runtime.app).post('/turn-limit/filter/inlet').set(auth).send({ body: chat }).expect(200);
    expect(mine.body.mine).toBe(true);

    await request(runtime.app).delete('/pipelines/delete').set(auth).send({ id: 'turn-limit' }).expect(200);
    const after = (await request(runtime.app).get('/pipelines').set(auth).expect(200)).body.data;
    expect(after.find((entry: { id: string }) => entry.id === 'turn-limit')).toMatchObject({
      name: 'Conversation Turn Limit',
      origin: 'package',
      status: 'loaded',
    });
    // A shipped filter is not the user's to delete: 404, and it keeps running.
    await request(runtime.app).delete('/pipelines/delete').set(auth).send({ id: 'turn-limit' }).expect(404);
    await request(runtime.app).post('/turn-limit/filter/inlet').set(auth).send({ body: chat }).expect(200);
  });

  it('an uploaded file with a shipped filter’s name replaces it at once', async () => {
    const { filtersDir } = outsideFolder({});
    const { runtime } = await runtimeFor(filtersDir, { SHIPPED_FILTERS: 'turn-limit', ...IN_THIS_THREAD });
    await request(runtime.app)
      .post('/pipelines/upload')
      .set(auth)
      .attach('file', Buffer.from(myTurnLimit), 'turn-limit.ts')
      .expect(200);
    const list = (await request(runtime.app).get('/pipelines').set(auth).expect(200)).body.data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: 'turn-limit', name: 'My Turn Limit', origin: 'user', status: 'loaded' });
  });

  it('SHIPPED_FILTERS chooses the shipped filters; an unknown id stops start-up with a message naming it', async () => {
    const { filtersDir } = outsideFolder({ 'greet.ts': greet });
    const { runtime } = await runtimeFor(filtersDir, { SHIPPED_FILTERS: 'none', ...IN_THIS_THREAD });
    const list = (await request(runtime.app).get('/pipelines').set(auth).expect(200)).body.data;
    expect(list.map((entry: { id: string }) => entry.id)).toEqual(['greet']);
    await expect(runtimeFor(filtersDir, { SHIPPED_FILTERS: 'context,nope' })).rejects.toThrow(
      /SHIPPED_FILTERS: unknown filter "nope"/,
    );
  });

  it('the real server process: a user filter in the main thread (FILTER_ISOLATION=off) resolves `eunoe` through the loader’s hook', async () => {
    const { filtersDir, root } = outsideFolder({ 'greet.ts': greet });
    const server = await startServerProcess({
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: filtersDir,
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
      FILTER_ISOLATION: 'off',
      SHIPPED_FILTERS: 'context',
      WATCH_FILTERS: 'false',
    });
    cleanups.push(() => server.stop());
    const list = (await (await fetch(`${server.url}/pipelines`, { headers: auth })).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(list.data.map((entry) => [entry.id, entry.status, entry.origin, entry.isolation]).sort()).toEqual([
      ['context', 'loaded', 'package', 'main'],
      ['greet', 'loaded', 'user', 'main'],
    ]);
    const response = await fetch(`${server.url}/greet/filter/inlet`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ body: chat }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { greeting: string }).greeting).toBe('hello');
  });

  it('the real server process: `.ts` and `.js` user filters import `eunoe/shipped` from a bare outside folder, in worker threads', async () => {
    const { filtersDir, root } = outsideFolder({ 'context-aware.ts': contextAware, 'my-spend-limit.js': mySpendLimit });
    const server = await startServerProcess({
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: filtersDir,
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
      FILTER_ISOLATION: 'worker',
      WATCH_FILTERS: 'false',
    });
    cleanups.push(() => server.stop());
    const list = (await (await fetch(`${server.url}/pipelines`, { headers: auth })).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(
      list.data.map((entry) => [entry.id, entry.name, entry.status, entry.origin, entry.isolation]).sort(),
    ).toEqual([
      ['context-aware', 'Context Aware', 'loaded', 'user', 'worker'],
      ['my-spend-limit', 'My Spend Limit', 'loaded', 'user', 'worker'],
    ]);
    const inlet = (id: string) =>
      fetch(`${server.url}/${id}/filter/inlet`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ body: chat, user: { id: 'u1', role: 'user' } }),
      });
    const aware = await inlet('context-aware');
    expect(aware.status).toBe(200);
    expect(((await aware.json()) as { contextPriority: unknown }).contextPriority).toEqual(expect.any(Number));
    // No cap is set: the shipped spend-limit inlet, run from the user's file, lets the chat through unchanged.
    const limited = await inlet('my-spend-limit');
    expect(limited.status).toBe(200);
    expect(await limited.json()).toMatchObject(chat);
  });
});
