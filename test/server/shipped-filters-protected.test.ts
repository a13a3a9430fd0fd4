import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-server.js';
import { copyPackage } from '../helpers/package-copy.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { repoRoot } from '../helpers/create-test-runtime.js';
import { loadConfig } from '../../src/core/config.js';
import { createRuntime } from '../../src/compose.js';
import { silentLogger } from '../../src/core/util/logger.js';

/** A user's own filter under a shipped filter's name. */
const myTurnLimit = `import { defineFilter } from 'eunoe';
export default defineFilter({ name: 'My Turn Limit', inlet: ({ body }) => ({ ...body, mine: true }) });
`;
/** A filter of the user's own, put by hand into the package's filters/ (the README's `filters/shout.ts`). */
const shout = `import { defineFilter } from 'eunoe';
export default defineFilter({ name: 'Shout', inlet: ({ body }) => ({ ...body, shout: true }) });
`;
const myContext = `import { defineFilter } from 'eunoe';
export default defineFilter({ name: 'My Context', inlet: ({ body }) => ({ ...body, myContext: true }) });
`;

const KEY = 'shipped-protected-key-1';
const auth = { Authorization: `Bearer ${KEY}` };
const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };

interface Listed {
  id: string;
  name: string;
  status: string;
  origin: string;
  path?: string;
}

/** sha256 of every file in a folder, by name. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .filter((name) => name !== 'shout.ts')
      .sort()
      .map((name) => [
        name,
        createHash('sha256')
          .update(readFileSync(path.join(dir, name)))
          .digest('hex'),
      ]),
  );
}

/**
 * The default layout: the server runs in a copy of the package with no FILTERS_DIR or DATA_DIR, so its filters
 * folder is the package's own `filters/` (the shipped files) and its data folder `data/`. The API must never
 * write or delete a shipped file there.
 */
describe('shipped filters in the default layout (FILTERS_DIR = the package’s filters/)', () => {
  let copy: ReturnType<typeof copyPackage>;
  let server: ServerProcess;
  let host: LoopbackHttp;
  let shippedDir: string;
  let shippedBefore: Record<string, string>;

  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${server.url}${route}`, {
      method,
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const list = async () =>
    ((await api('GET', '/pipelines')).body.data as Listed[]).sort((a, b) => a.id.localeCompare(b.id));
  const upload = async (name: string, source: string) => {
    const form = new FormData();
    form.append('file', new Blob([source]), name);
    const response = await fetch(`${server.url}/pipelines/upload`, { method: 'POST', headers: auth, body: form });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const start = () =>
    startServerProcess(
      // No FILTERS_DIR, DATA_DIR or VALVES_DIR: the defaults, relative to the copy. All shipped filters.
      {
        PIPELINES_API_KEY: KEY,
        SHIPPED_FILTERS: 'all',
        FILTER_ISOLATION: 'off',
        WATCH_FILTERS: 'true',
        ADD_URL_ALLOW_PRIVATE: 'true', // the file to add is served on loopback
      },
      { root: copy.root },
    );

  beforeAll(async () => {
    copy = copyPackage();
    shippedDir = path.join(copy.root, 'filters');
    writeFileSync(path.join(shippedDir, 'shout.ts'), shout);
    shippedBefore = snapshot(shippedDir);
    host = await listenOnLoopback((request, response) => {
      if (request.url === '/context.ts') response.end(myContext);
      else response.writeHead(404).end();
    });
    server = await start();
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await host?.close();
    copy?.dispose();
  });

  it('lists every shipped filter from the package’s filters/ with origin "package"', async () => {
    const filters = await list();
    expect(filters.map((entry) => [entry.id, entry.status, entry.origin])).toEqual([
      ...['accounting', 'context', 'openai-proxy'].map((id) => [id, 'loaded', 'package']),
      ['shout', 'loaded', 'user'], // a file of the user's own in filters/ stays the user's
      ...['spend-limit', 'system-prefix', 'turn-limit'].map((id) => [id, 'loaded', 'package']),
    ]);
    expect(filters.find((entry) => entry.id === 'context')?.path).toBe(path.join(shippedDir, 'context.ts'));
  });

  it('DELETE of a shipped filter answers 404 with the reason; the file stays and the filter keeps running', async () => {
    const deleted = await api('DELETE', '/pipelines/delete', { id: 'context' });
    expect(deleted.status).toBe(404);
    expect(String(deleted.body.detail)).toMatch(/shipped with Eunoe and cannot be deleted through the API/);
    expect(String(deleted.body.detail)).toMatch(/SHIPPED_FILTERS/);
    expect(snapshot(shippedDir)).toEqual(shippedBefore);
    expect((await api('POST', '/context/filter/inlet', { body: chat })).status).toBe(200);
  });

  it('an upload named like a shipped file lands in DATA_DIR/filters and replaces it by id; deleting it brings the shipped one back', async () => {
    const uploaded = await upload('turn-limit.ts', myTurnLimit);
    expect(uploaded.status).toBe(200);
    const userFile = path.join(copy.root, 'data', 'filters', 'turn-limit.ts');
    expect(readFileSync(userFile, 'utf8')).toBe(myTurnLimit);
    expect(snapshot(shippedDir)).toEqual(shippedBefore); // the shipped turn-limit.ts is untouched
    expect((await list()).find((entry) => entry.id === 'turn-limit')).toMatchObject({
      name: 'My Turn Limit',
      origin: 'user',
      status: 'loaded',
      path: userFile,
    });
    expect((await api('POST', '/turn-limit/filter/inlet', { body: chat })).body.mine).toBe(true);

    const deleted = await api('DELETE', '/pipelines/delete', { id: 'turn-limit' });
    expect(deleted.status).toBe(200);
    expect(existsSync(userFile)).toBe(false);
    expect((await list()).find((entry) => entry.id === 'turn-limit')).toMatchObject({
      name: 'Conversation Turn Limit',
      origin: 'package',
      status: 'loaded',
      path: path.join(shippedDir, 'turn-limit.ts'),
    });
    const shippedInlet = await api('POST', '/turn-limit/filter/inlet', { body: chat });
    expect(shippedInlet.status).toBe(200);
    expect(shippedInlet.body.mine).toBeUndefined();
    // Now it is the shipped one again: not the user's to delete.
    expect((await api('DELETE', '/pipelines/delete', { id: 'turn-limit' })).status).toBe(404);
    expect(snapshot(shippedDir)).toEqual(shippedBefore);
  });

  it('/pipelines/add of a shipped name writes DATA_DIR/filters too, and the replacement holds across a restart', async () => {
    const added = await api('POST', '/pipelines/add', { url: `${host.origin}/context.ts` });
    expect(added.status).toBe(200);
    const userFile = path.join(copy.root, 'data', 'filters', 'context.ts');
    expect(readFileSync(userFile, 'utf8')).toBe(myContext);
    expect(snapshot(shippedDir)).toEqual(shippedBefore);
    expect((await api('POST', '/context/filter/inlet', { body: chat })).body.myContext).toBe(true);

    await server.stop();
    server = await start();
    expect((await list()).find((entry) => entry.id === 'context')).toMatchObject({
      name: 'My Context',
      origin: 'user',
      path: userFile,
    });
    expect((await api('DELETE', '/pipelines/delete', { id: 'context' })).status).toBe(200);
    expect((await list()).find((entry) => entry.id === 'context')).toMatchObject({
      origin: 'package',
      status: 'loaded',
    });
    expect(snapshot(shippedDir)).toEqual(shippedBefore);
  }, 90_000);

  it('a file of the user’s own in filters/ is the user’s to delete', async () => {
    expect((await api('DELETE', '/pipelines/delete', { id: 'shout' })).status).toBe(200);
    expect(existsSync(path.join(shippedDir, 'shout.ts'))).toBe(false);
    expect((await list()).map((entry) => entry.id)).not.toContain('shout');
    expect(snapshot(shippedDir)).toEqual(shippedBefore);
  });
});

describe('the default layout, in-process, on this checkout’s own filters/ (read only)', () => {
  it('SHIPPED_FILTERS chooses among the shipped files even when FILTERS_DIR is the package’s filters/', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-default-layout-'));
    const config = loadConfig(
      {
        PIPELINES_API_KEY: KEY,
        FILTERS_DIR: path.join(repoRoot, 'filters'),
        DATA_DIR: path.join(root, 'data'),
        VALVES_DIR: path.join(root, 'valves'),
        SHIPPED_FILTERS: 'context,turn-limit',
        FILTER_ISOLATION: 'off',
        WATCH_FILTERS: 'false',
        PRICING_FETCH: 'false',
      },
      root,
    );
    const runtime = await createRuntime({ config, logger: silentLogger(), watch: false });
    try {
      expect(runtime.registry.list().map((filter) => filter.id)).toEqual(['context', 'turn-limit']);
      expect(runtime.registry.uploadDir).toBe(path.join(root, 'data', 'filters'));
    } finally {
      await runtime.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
