import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import type { JsonAnswer } from '../helpers/server-calls.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';
import { fillUp, ledgerOutletBody, mountTmpfs } from './helpers/full-disk.js';

/**
 * "No answered record lost" on a full disk, in the default layout (SQLite, the ledger journal beside it in DATA_DIR):
 * the data folder is a real 8 MB tmpfs filled to the last byte while a server takes outlets. Every outlet is either
 * answered 200 and its record lands in the ledger (through the journal's room reserved at start, across a kill -9),
 * or answered 503 and counted (`eunoe_ledger_unrecorded_total`), with /health and /readyz saying why.
 *
 * Mounting a tmpfs needs root (CI runs as root); without it this test fails, it is not skipped.
 */
const KEY = 'full-disk-key-0123456789';
const cleanups = cleanupsAfterEach();
const outletBody = (id: string) => ledgerOutletBody('full', id);

async function get(server: ServerProcess, route: string) {
  const response = await fetch(`${server.url}${route}`, { headers: { authorization: `Bearer ${KEY}` } });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as JsonAnswer['body'] };
}

async function outlet(server: ServerProcess, id: string): Promise<number> {
  const response = await fetch(`${server.url}/accounting/filter/outlet`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(outletBody(id)),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('SQLite on a full disk: every outlet recorded or refused, never answered and lost', () => {
  it('200 only for records that land (the reserve holds them across a kill -9), 503 past it, /health, /readyz and the metric say so', async () => {
    const { dir, remove } = tempDir('eunoe-full-disk-');
    cleanups.push(remove);
    cleanups.push(mountTmpfs(dir, '8m'));
    const dataDir = path.join(dir, 'data');
    // A reserve of 64 KB (about a hundred records) instead of 4 MB, so it fills in a few seconds.
    const env = {
      DATA_DIR: dataDir,
      SHIPPED_FILTERS: 'accounting',
      PIPELINES_API_KEY: KEY,
      LEDGER_JOURNAL_RESERVE_KB: '64',
      LOG_LEVEL: 'error',
    };
    let server = await startServerProcess(env);
    cleanups.push(() => server.stop());

    const answered = new Map<string, number>();
    for (let index = 0; index < 5; index++) answered.set(`before-${index}`, await outlet(server, `before-${index}`));
    expect([...answered.values()]).toEqual([200, 200, 200, 200, 200]);

    const filler = fillUp(dir);
    let refused = 0;
    for (let index = 0; index < 5000 && refused < 20; index++) {
      const id = `full-${index}`;
      const status = await outlet(server, id);
      answered.set(id, status);
      if (status !== 200) refused += 1;
    }
    const statuses = new Set(answered.values());
    expect([...statuses].sort()).toEqual([200, 503]);
    const ok = [...answered].filter(([, status]) => status === 200).map(([id]) => id);
    const refusedIds = [...answered].filter(([, status]) => status === 503).map(([id]) => id);
    expect(refusedIds).toHaveLength(20);

    const health = await get(server, '/health');
    expect(health.status).toBe(503);
    const store = health.json().store;
    expect(store.ok).toBe(false);
    expect(store.ledger.refused).toBe(20);
    expect(store.ledger.refusing).toMatch(/reserved for the journal.*is full/);
    expect(store.ledger.reserve.entries).toBeGreaterThan(0);
    expect(store.detail).toMatch(/ledger records are refused/);
    const ready = await get(server, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'not ready', checks: { ledger: false } });
    const metrics = await get(server, '/metrics');
    expect(metrics.text).toMatch(/^eunoe_ledger_unrecorded_total 20$/m);

    // What was answered 200 is on disk (the ledger, the journal or its reserve): a kill -9, room again, a restart.
    await server.kill();
    fs.rmSync(filler);
    server = await startServerProcess(env);
    const ledger = new Database(path.join(dataDir, 'eunoe.db'), { readonly: true });
    cleanups.push(() => void ledger.close());
    const ids = () =>
      (ledger.prepare("SELECT id FROM ledger WHERE user_id = 'u-full'").all() as Array<{ id: string }>)
        .map((row) => row.id)
        .sort();
    await waitFor(async () => (await get(server, '/health')).json().store.queued, {
      until: (queued) => queued === 0,
      timeoutMs: 30_000,
    });
    expect(ids()).toEqual([...ok].sort());
    expect((await get(server, '/health')).status).toBe(200);
    expect((await get(server, '/readyz')).status).toBe(200);
    // The reserve keeps its room (written, not a sparse hole) for the next full disk.
    const reserve = fs.statSync(path.join(dataDir, 'ledger-journal.db.reserve'));
    expect(reserve.size).toBe(64 * 1024);
    expect(reserve.blocks * 512).toBeGreaterThanOrEqual(64 * 1024);
  }, 180_000); // two server starts, a kill and a few thousand outlets: a liveness bound
});
