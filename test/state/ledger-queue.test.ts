import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { LedgerQueue, type QueuedAppend } from '../../src/state/journal/ledger-queue.js';
import { tempDir } from '../helpers/temp-store.js';

const item = (id: string): QueuedAppend => ({ stream: 'ledger', id, time: 0, json: '{}' });

describe('LedgerQueue', () => {
  it('flushes in order and empties', async () => {
    const queue = new LedgerQueue({ max: 10 });
    for (const id of ['a', 'b', 'c']) queue.push(item(id));
    const sent: string[] = [];
    expect(await queue.flush(async (entry) => sent.push(entry.id), 2)).toBe(true);
    expect(sent).toEqual(['a', 'b', 'c']);
    expect(queue.size).toBe(0);
  });

  it('keeps failed and unsent entries, in order, for the next flush', async () => {
    const queue = new LedgerQueue({ max: 10 });
    for (const id of ['a', 'b', 'c', 'd', 'e']) queue.push(item(id));
    const sent: string[] = [];
    const flaky = async (entry: QueuedAppend) => {
      if (entry.id === 'b') throw new Error('down');
      sent.push(entry.id);
    };
    expect(await queue.flush(flaky, 3)).toBe(false);
    expect(sent).toEqual(['a', 'c']);
    expect(queue.takeAll().map((entry) => entry.id)).toEqual(['b', 'd', 'e']);
  });

  it('refuses past the bound, says so once, and reports the drops after draining', async () => {
    const full: number[] = [];
    const drained: number[] = [];
    const queue = new LedgerQueue({
      max: 2,
      onFull: (max) => full.push(max),
      onDrained: (dropped) => drained.push(dropped),
    });
    expect([queue.push(item('a')), queue.push(item('b')), queue.push(item('c')), queue.push(item('d'))]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(full).toEqual([2]);
    await queue.flush(async () => {});
    expect(drained).toEqual([2]);
    queue.push(item('e'));
    queue.push(item('f'));
    queue.push(item('g'));
    expect(full).toEqual([2, 2]);
  });

  it('a flush started during another joins it and entries added meanwhile are sent too', async () => {
    const queue = new LedgerQueue({ max: 10 });
    queue.push(item('a'));
    const sent: string[] = [];
    const slow = async (entry: QueuedAppend) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      sent.push(entry.id);
    };
    const first = queue.flush(slow);
    queue.push(item('b'));
    const second = queue.flush(slow);
    expect(await Promise.all([first, second])).toEqual([true, true]);
    expect(sent).toEqual(['a', 'b']);
  });

  it('a write the store refuses on its own is held and retried with a backoff, and later writes are not held back', async () => {
    const held: string[] = [];
    const released: number[] = [];
    let now = 0;
    const queue = new LedgerQueue({
      max: 10,
      isTransient: (error) => (error as Error).message === 'down',
      onHeld: (entry) => held.push(entry.id),
      onReleased: (count) => released.push(count),
      now: () => now,
    });
    for (const id of ['a', 'bad', 'c']) queue.push(item(id));
    const sent: string[] = [];
    let fixed = false;
    const tried: string[] = [];
    const send = async (entry: QueuedAppend) => {
      tried.push(entry.id);
      if (entry.id === 'bad' && !fixed)
        throw new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
      sent.push(entry.id);
    };
    expect(await queue.flush(send)).toBe(false);
    expect(sent).toEqual(['a', 'c']);
    expect([queue.size, queue.backlog]).toEqual([1, 0]);
    tried.length = 0;
    now = 500;
    expect(await queue.flush(send)).toBe(false); // its 1 s wait has not run out: not tried
    expect(tried).toEqual([]);
    now = 1000;
    expect(await queue.flush(send)).toBe(false); // tried, still refused: kept, told once, next try in 2 s
    now = 2500;
    expect(await queue.flush(send)).toBe(false);
    expect([tried, held]).toEqual([['bad'], ['bad']]);
    queue.push(item('d'), { error: new Error('WRONGTYPE again') }); // failed on the direct path: held at once
    expect([queue.size, queue.backlog, held]).toEqual([2, 0, ['bad', 'd']]);
    fixed = true; // e.g. the admin removed the wrong key
    now = 3500;
    expect(await queue.flush(send)).toBe(true);
    expect(sent).toEqual(['a', 'c', 'bad', 'd']);
    expect(released).toEqual([2]);
    expect(queue.size).toBe(0);
  });

  it('with a journal file, what was accepted survives the process and is replayed in order by the next one', async () => {
    const { dir, remove } = tempDir('eunoe-journal-');
    try {
      const file = path.join(dir, 'data', 'ledger-journal.db');
      const first = new LedgerQueue({ max: 10, file });
      expect(first.durable).toBe(true);
      for (const id of ['a', 'b', 'c'])
        first.push({
          ...item(id),
          usage: { userId: 'u1', periods: ['d:2026-11-05', 'm:2026-11'], hi: '350', lo: '0' },
        });
      first.close(); // as if the process died: nothing was flushed
      const second = new LedgerQueue({ max: 10, file });
      expect(second.size).toBe(3);
      const sent: QueuedAppend[] = [];
      expect(await second.flush(async (entry) => sent.push(entry))).toBe(true);
      expect(sent.map((entry) => entry.id)).toEqual(['a', 'b', 'c']);
      expect(sent[0]?.usage).toEqual({ userId: 'u1', periods: ['d:2026-11-05', 'm:2026-11'], hi: '350', lo: '0' });
      second.close();
      const third = new LedgerQueue({ max: 10, file });
      expect(third.size).toBe(0);
      third.close();
    } finally {
      remove();
    }
  });
});
