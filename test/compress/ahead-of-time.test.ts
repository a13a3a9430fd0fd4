import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AheadOfTimeRunner } from '../../src/features/context/compress/ahead-of-time.js';
import { tempStore } from './helpers/temp-store.js';

let store: Awaited<ReturnType<typeof tempStore>>;
beforeEach(async () => {
  store = await tempStore();
});
afterEach(async () => store.dispose());

/** A job that runs until `release()` is called or its signal aborts. */
function gate() {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  const seen: { signal?: AbortSignal; ran: boolean } = { ran: false };
  const job = async (signal: AbortSignal) => {
    seen.signal = signal;
    seen.ran = true;
    await Promise.race([
      opened,
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    ]);
  };
  return { job, release, seen };
}

describe('AheadOfTimeRunner', () => {
  it('runs one job per chat, across runners sharing the store (replicas), and frees the lease after', async () => {
    const errors: string[] = [];
    const first = new AheadOfTimeRunner({
      maxConcurrent: 4,
      timeoutMs: 10_000,
      onError: (error) => errors.push(error.message),
    });
    const replica = new AheadOfTimeRunner({ maxConcurrent: 4, timeoutMs: 10_000 });
    const a = gate();
    expect(await first.schedule(store.state, 'chat:1', a.job)).toBe('started');
    expect(await first.schedule(store.state, 'chat:1', gate().job)).toBe('busy');
    expect(await replica.schedule(store.state, 'chat:1', gate().job)).toBe('busy');
    expect(await replica.schedule(store.state, 'chat:2', async () => {})).toBe('started');
    a.release();
    await first.settle('chat:1', 5_000);
    expect(first.size).toBe(0);
    expect(await replica.schedule(store.state, 'chat:1', async () => {})).toBe('started');
    await replica.close();
    await first.close();
    expect(errors).toEqual([]);
  });

  it("takes each job's limits from the call when given (valves changed since the runner was built)", async () => {
    const runner = new AheadOfTimeRunner({ maxConcurrent: 1, timeoutMs: 10_000 });
    const gates = [gate(), gate()];
    expect(await runner.schedule(store.state, 'x', gates[0]!.job)).toBe('started');
    expect(await runner.schedule(store.state, 'y', gates[1]!.job)).toBe('at-capacity');
    expect(await runner.schedule(store.state, 'y', gates[1]!.job, { maxConcurrent: 2 })).toBe('started');
    const errors: string[] = [];
    const stuck = (signal: AbortSignal) =>
      new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    expect(
      await runner.schedule(store.state, 'z', stuck, {
        maxConcurrent: 3,
        timeoutMs: 20,
        onError: (error) => errors.push(error.message),
      }),
    ).toBe('started');
    await runner.settle('z', 5_000);
    expect(errors).toEqual(['ahead-of-time job timed out after 20 ms']);
    gates.forEach((item) => item.release());
    await runner.close();
  });

  it('caps concurrent jobs in a process', async () => {
    const runner = new AheadOfTimeRunner({ maxConcurrent: 2, timeoutMs: 10_000 });
    const gates = [gate(), gate(), gate()];
    expect(await runner.schedule(store.state, 'a', gates[0]!.job)).toBe('started');
    expect(await runner.schedule(store.state, 'b', gates[1]!.job)).toBe('started');
    expect(await runner.schedule(store.state, 'c', gates[2]!.job)).toBe('at-capacity');
    expect(gates[2]!.seen.ran).toBe(false);
    gates.forEach((item) => item.release());
    await runner.close();
  });

  it('aborts a job past its deadline and reports it; close aborts running jobs and refuses new ones', async () => {
    const errors: string[] = [];
    const runner = new AheadOfTimeRunner({
      maxConcurrent: 2,
      timeoutMs: 50,
      onError: (error) => errors.push(error.message),
    });
    const slow = gate();
    await runner.schedule(store.state, 'slow', slow.job);
    await runner.settle('slow', 5_000);
    expect(slow.seen.signal!.aborted).toBe(true);
    expect(errors).toEqual([expect.stringMatching(/timed out after 50 ms/)]);
    const long = new AheadOfTimeRunner({ maxConcurrent: 2, timeoutMs: 60_000 });
    const held = gate();
    await long.schedule(store.state, 'held', held.job);
    await long.close();
    expect(held.seen.signal!.aborted).toBe(true);
    expect(await long.schedule(store.state, 'later', async () => {})).toBe('closed');
  });
});
