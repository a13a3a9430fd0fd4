import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerQueue } from '../../src/state/journal/ledger-queue.js';
import { sqliteFiles } from '../../src/core/util/private-files.js';
import { tempDir } from '../helpers/temp-store.js';

const mode = (file: string) => statSync(file).mode & 0o777;
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A journal with one committed entry, so SQLite has made its -wal and -shm files. */
function journalWithOneEntry(file: string): LedgerQueue {
  const queue = new LedgerQueue({ max: 10, file });
  queue.push({ stream: 'ledger', id: 'm-1', time: 0, json: '{"userEmail":"someone@example.com"}' });
  return queue;
}

describe('the ledger journal is private like the rest of the data', () => {
  it('a LEDGER_JOURNAL_PATH outside the data folder: the folders it creates are 0700, the journal and its -wal/-shm 0600', () => {
    const { dir, remove } = tempDir('eunoe-journal-modes-');
    cleanups.push(remove);
    const file = path.join(dir, 'elsewhere', 'nested', 'ledger-journal.db');
    const previous = process.umask(0o022); // the usual umask, which leaves new files 0644 and folders 0755
    let queue: LedgerQueue;
    try {
      queue = journalWithOneEntry(file);
    } finally {
      process.umask(previous);
    }
    expect(mode(path.join(dir, 'elsewhere')).toString(8)).toBe('700');
    expect(mode(path.join(dir, 'elsewhere', 'nested')).toString(8)).toBe('700');
    for (const part of sqliteFiles(file)) expect([part, mode(part).toString(8)]).toEqual([part, '600']);
    queue.close();
  });

  it('a journal an older version left 0644 (with its -wal and -shm) is made 0600 when opened; an existing folder is left alone', () => {
    const { dir, remove } = tempDir('eunoe-journal-modes-');
    cleanups.push(remove);
    const folder = path.join(dir, 'shared');
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    const file = path.join(folder, 'ledger-journal.db');
    const first = journalWithOneEntry(file);
    first.close();
    for (const part of sqliteFiles(file)) {
      closeSync(openSync(part, 'a'));
      chmodSync(part, 0o644);
    }
    const second = new LedgerQueue({ max: 10, file });
    expect(second.size).toBe(1);
    for (const part of sqliteFiles(file)) expect([part, mode(part).toString(8)]).toEqual([part, '600']);
    expect(mode(folder).toString(8)).toBe('755');
    second.close();
  });
});
