import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { JournalReserve } from '../../src/state/journal/journal-reserve.js';
import { LedgerQueue, reserveFile, type QueuedAppend } from '../../src/state/journal/ledger-queue.js';
import { tempDir } from '../helpers/temp-store.js';
import { freePort } from '../helpers/redis-server.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { StateUnavailableError } from '../../src/core/errors/index.js';
import { usageRecord } from '../usage/helpers/usage-record.js';
import { fillUp, mountTmpfs } from './helpers/full-disk.js';

/**
 * The ledger journal's room reserved on disk, on a real full file system (a tmpfs of 4 MB: mounting it needs root,
 * which CI has; without it these tests fail, they are not skipped).
 */
const cleanups = cleanupsAfterEach();

const item = (id: string): QueuedAppend => ({
  stream: 'ledger',
  id,
  time: 0,
  json: JSON.stringify({ pad: 'x'.repeat(400) }),
});

function fullDiskDir(): { dir: string; fill: () => () => void } {
  const { dir, remove } = tempDir('eunoe-reserve-');
  cleanups.push(remove);
  cleanups.push(mountTmpfs(dir, '4m'));
  /** Fill the file system to the last byte; returns what frees it again. */
  const fill = () => {
    const file = fillUp(dir);
    return () => fs.rmSync(file);
  };
  return { dir, fill };
}

describe('LedgerQueue on a full disk: the reserve', () => {
  it('takes entries the SQLite file cannot, refuses past its room, and keeps them (in order) across a reopen', async () => {
    const { dir, fill } = fullDiskDir();
    const file = path.join(dir, 'ledger-journal.db');
    let queue = new LedgerQueue({ max: 10_000, file, reserveBytes: 16 * 1024 });
    expect(fs.statSync(reserveFile(file)).size).toBe(16 * 1024);
    expect(fs.statSync(reserveFile(file)).mode & 0o777).toBe(0o600);
    queue.push(item('before-1'));
    queue.push(item('before-2'));
    const free = fill();

    const taken: string[] = [];
    let refusal: unknown;
    for (let index = 0; index < 1000; index++) {
      try {
        queue.push(item(`full-${index}`));
        taken.push(`full-${index}`);
      } catch (error) {
        refusal = error;
        break;
      }
    }
    // 16 KB hold about 37 entries of 430 bytes; whatever the SQLite file still took before failing counts too.
    expect(taken.length).toBeGreaterThan(30);
    expect(taken.length).toBeLessThan(1000);
    expect(String(refusal)).toMatch(/room reserved for the journal .* is full/);
    expect(queue.refused).toBe(1);
    expect(queue.refusing).toMatch(/is full/);
    expect(queue.reserved!.entries).toBeGreaterThan(0);
    expect(queue.size).toBe(2 + taken.length);

    queue.close();
    free();
    queue = new LedgerQueue({ max: 10_000, file, reserveBytes: 16 * 1024 });
    cleanups.push(() => queue.close());
    expect(queue.size).toBe(2 + taken.length);
    const sent: string[] = [];
    expect(await queue.flush(async (entry) => sent.push(entry.id), 10)).toBe(true);
    expect(sent).toEqual(['before-1', 'before-2', ...taken]);
    expect(queue.reserved).toEqual({ bytes: 16 * 1024, used: 0, entries: 0 });
    expect(queue.refusing).toBeUndefined();
    expect(fs.statSync(reserveFile(file)).size).toBe(16 * 1024);
  });

  it('with room again, the next push moves the reserve into the file first, so the order holds', async () => {
    const { dir, fill } = fullDiskDir();
    const file = path.join(dir, 'ledger-journal.db');
    let now = 1_000_000;
    const queue = new LedgerQueue({ max: 10_000, file, reserveBytes: 16 * 1024, now: () => now });
    cleanups.push(() => queue.close());
    const free = fill();
    const ids = Array.from({ length: 20 }, (_, index) => `full-${index}`);
    for (const id of ids) queue.push(item(id));
    expect(queue.reserved!.entries).toBeGreaterThan(0);
    free();
    now += 1000; // the move is tried at most once a second
    queue.push(item('after'));
    expect(queue.reserved!.entries).toBe(0);
    const sent: string[] = [];
    expect(await queue.flush(async (entry) => sent.push(entry.id))).toBe(true);
    expect(sent).toEqual([...ids, 'after']);
  });
});

describe('LedgerQueue on a full disk: refusing', () => {
  it('ends once entries leave the journal, even when one of them stays held', async () => {
    const { dir, fill } = fullDiskDir();
    const queue = new LedgerQueue({
      max: 10_000,
      file: path.join(dir, 'ledger-journal.db'),
      reserveBytes: 4 * 1024,
      isTransient: () => false, // every failure is the entry's own: it is held, the others land
    });
    cleanups.push(() => queue.close());
    const free = fill();
    const taken: string[] = [];
    for (let index = 0; index < 1000; index++) {
      try {
        queue.push(item(`full-${index}`));
        taken.push(`full-${index}`);
      } catch {
        break;
      }
    }
    expect(queue.refusing).toBeDefined();
    free();
    await queue.flush(async (entry) => entry.id !== taken[0] || Promise.reject(new Error('constraint')));
    expect(queue.size).toBe(1);
    expect(queue.refusing).toBeUndefined();
    expect(queue.refused).toBe(1);
  });
});

describe('LedgerQueue on a full disk: a flush', () => {
  it('whose deletes fail does not throw: what landed stays and is sent again once there is room', async () => {
    const { dir, fill } = fullDiskDir();
    const queue = new LedgerQueue({ max: 10_000, file: path.join(dir, 'ledger-journal.db'), reserveBytes: 16 * 1024 });
    cleanups.push(() => queue.close());
    const ids = Array.from({ length: 50 }, (_, index) => `row-${index}`);
    for (const id of ids) queue.push(item(id));
    const free = fill();
    const sent: string[] = [];
    expect(await queue.flush(async (entry) => sent.push(entry.id))).toBe(false);
    expect(sent).toEqual(ids);
    expect(queue.size).toBe(50);
    free();
    const again: string[] = [];
    expect(await queue.flush(async (entry) => again.push(entry.id))).toBe(true);
    expect(again).toEqual(ids);
    expect(queue.size).toBe(0);
  });
});

describe('Redis away and the disk full', () => {
  it('records go to the reserve; past it they are refused, and the store health says why', async () => {
    const { dir, fill } = fullDiskDir();
    const port = await freePort(); // nothing listens there: Redis is away
    const store = await createStateStore({
      config: {
        sqlitePath: '',
        REDIS_URL: `redis://127.0.0.1:${port}`,
        REDIS_PREFIX: 'eunoe-reserve:',
        STATE_TIMEOUT_MS: 100,
        LEDGER_QUEUE_MAX: 10_000,
        ledgerJournalPath: path.join(dir, 'ledger-journal.db'),
        LEDGER_JOURNAL_RESERVE_KB: 8,
      },
      logger: silentLogger(),
    });
    cleanups.push(() => store.close());
    const ledger = createLedger(store);
    fill();
    let refusal: unknown;
    let taken = 0;
    for (let index = 0; index < 1000; index++) {
      try {
        await ledger.record(usageRecord({ messageId: `r-${index}` }));
        taken += 1;
      } catch (error) {
        refusal = error;
        break;
      }
    }
    expect(taken).toBeGreaterThan(5);
    expect(refusal).toBeInstanceOf(StateUnavailableError);
    const health = store.health();
    expect(health).toMatchObject({ backend: 'redis', ok: false, queued: taken, ledger: { refused: 1 } });
    expect(health.ledger?.refusing).toMatch(/room reserved for the journal .* is full/);
    expect(health.ledger?.reserve?.entries).toBeGreaterThan(0);
    expect(health.detail).toMatch(/ledger records are refused/);
  });
});

describe('JournalReserve', () => {
  it('a torn last entry (a crash during its write) is left out at the next open, the others are read', () => {
    const { dir, remove } = tempDir('eunoe-reserve-');
    cleanups.push(remove);
    const file = path.join(dir, 'r');
    const reserve = new JournalReserve(file, 4096);
    reserve.append('{"id":"a"}');
    const torn = reserve.append('{"id":"b-torn"}')!;
    reserve.close();
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('XX'), 0, 2, torn + 14); // a payload byte changed: its checksum fails
    fs.closeSync(fd);
    const reopened = new JournalReserve(file, 4096);
    cleanups.push(() => reopened.close());
    expect(reopened.entries().map((entry) => entry.item)).toEqual(['{"id":"a"}']);
    expect(reopened.append('{"id":"c"}')).toBe(torn);
  });
});
