import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const KEY = 'data-dir-lock-key-1';
const redisUrl = inject('redisUrl');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempRoot(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-lock-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({ PIPELINES_API_KEY: KEY, WATCH_FILTERS: 'false', ...env });
  cleanups.push(() => server.stop());
  return server;
}

/** Start a server that must not start: the error startServerProcess throws (exit status and output). */
async function refused(env: Record<string, string>): Promise<string> {
  try {
    const server = await startServerProcess({ PIPELINES_API_KEY: KEY, WATCH_FILTERS: 'false', ...env });
    cleanups.push(() => server.stop());
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the second server started');
}

const holderOf = (dataDir: string) =>
  JSON.parse(readFileSync(path.join(dataDir, 'eunoe.lock.json'), 'utf8')) as { pid: number; port: number };

describe('one server per data folder (SQLite)', () => {
  // Two servers for the three cases, started together: `first` holds `data`, `other` holds `other-data`.
  let root: string;
  let env: { DATA_DIR: string; VALVES_DIR: string; FILTERS_DIR: string };
  let first: ServerProcess;
  let other: ServerProcess;
  const shared: ServerProcess[] = [];
  const otherData = () => path.join(root, 'other-data');
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-lock-'));
    env = { DATA_DIR: path.join(root, 'data'), VALVES_DIR: path.join(root, 'valves'), FILTERS_DIR: root };
    const servers = await Promise.allSettled([
      startServerProcess({ PIPELINES_API_KEY: KEY, WATCH_FILTERS: 'false', ...env }),
      startServerProcess({ PIPELINES_API_KEY: KEY, WATCH_FILTERS: 'false', ...env, DATA_DIR: otherData() }),
    ]);
    for (const server of servers) if (server.status === 'fulfilled') shared.push(server.value);
    for (const server of servers) if (server.status === 'rejected') throw server.reason;
    [first, other] = shared as [ServerProcess, ServerProcess];
  }, 120_000);
  afterAll(async () => {
    for (const server of shared) await server.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a second server on the same DATA_DIR exits at once (status 78) naming the holder’s pid and port; the first keeps serving', async () => {
    expect(holderOf(env.DATA_DIR)).toMatchObject({ pid: first.pid, port: first.port });
    expect(statSync(path.join(env.DATA_DIR, 'eunoe.lock')).mode & 0o777).toBe(0o600);

    const message = await refused(env);
    expect(message).toMatch(/exited early \(78\)/);
    expect(message).toContain(
      `the data folder ${env.DATA_DIR} is in use by another Eunoe server (pid ${first.pid}, port ${first.port}`,
    );
    expect(message).toMatch(/give this one its own DATA_DIR/);
    expect((await fetch(`${first.url}/health`, { headers: { Authorization: `Bearer ${KEY}` } })).status).toBe(200);

    // Another data folder is another server's: it started beside the first, and holds its own lock.
    expect(holderOf(otherData())).toMatchObject({ pid: other.pid, port: other.port });
    expect((await fetch(`${other.url}/health`, { headers: { Authorization: `Bearer ${KEY}` } })).status).toBe(200);
  }, 120_000);

  it('a lock left by a killed server (its pid gone) is taken over', async () => {
    await other.kill();
    expect(holderOf(otherData()).pid).toBe(other.pid); // the stale holder file is still there
    const second = await start({ ...env, DATA_DIR: otherData() });
    expect(holderOf(otherData())).toMatchObject({ pid: second.pid, port: second.port });
    expect((await fetch(`${second.url}/health`, { headers: { Authorization: `Bearer ${KEY}` } })).status).toBe(200);
  }, 120_000);

  it('a clean stop lets go of the lock and removes the holder file', async () => {
    expect(existsSync(path.join(env.DATA_DIR, 'eunoe.lock.json'))).toBe(true);
    await first.stop();
    expect(existsSync(path.join(env.DATA_DIR, 'eunoe.lock.json'))).toBe(false);
  }, 60_000);
});

describe('a lock file that cannot be used', () => {
  it('is a start-up error with status 78 naming the file, not a crash', async () => {
    const root = tempRoot();
    const dataDir = path.join(root, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(path.join(dataDir, 'eunoe.lock'), 'not a database, not a lock'.repeat(100));
    const message = await refused({ DATA_DIR: dataDir, VALVES_DIR: path.join(root, 'valves'), FILTERS_DIR: root });
    expect(message).toMatch(/exited early \(78\)/);
    expect(message).toContain(`cannot lock the data folder ${dataDir} (${path.join(dataDir, 'eunoe.lock')}:`);
  }, 60_000);
});

describe.runIf(redisUrl)('with Redis: replicas share the state, each keeps its own ledger journal', () => {
  it('two servers on one Redis run side by side; a second one on the same journal is refused, naming the holder', async () => {
    const root = tempRoot();
    const shared = {
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `eunoe-lock-${randomBytes(4).toString('hex')}:`,
      FILTERS_DIR: root,
      VALVES_DIR: path.join(root, 'valves'),
    };
    const a = await start({ ...shared, DATA_DIR: path.join(root, 'a') });
    const b = await start({ ...shared, DATA_DIR: path.join(root, 'b') });
    expect(a.pid).not.toBe(b.pid);
    const message = await refused({ ...shared, DATA_DIR: path.join(root, 'a') });
    expect(message).toMatch(/exited early \(78\)/);
    expect(message).toContain(
      `the ledger journal ${path.join(root, 'a', 'ledger-journal.db')} is in use by another Eunoe server (pid ${a.pid}, port ${a.port}`,
    );
  }, 120_000);
});
