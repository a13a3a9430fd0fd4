import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { timeoutSignal } from '../../src/core/util/timeout-signal.js';

/** A full garbage collection, on demand (the flag is set for this worker only). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));

describe('a deadline signal', () => {
  it('aborts with a TimeoutError after its time, even when garbage collection runs meanwhile', async () => {
    const parent = new AbortController();
    const deadline = timeoutSignal(150, parent.signal);
    const reason = aborted(deadline.signal);
    for (let round = 0; round < 5; round++) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await reason).toMatchObject({ name: 'TimeoutError' });
    expect(deadline.timedOut).toBe(true);
    deadline.clear();
  });

  it('aborts with the parent, with the parent’s reason, and says it did not time out', async () => {
    const parent = new AbortController();
    const deadline = timeoutSignal(60_000, parent.signal);
    const reason = aborted(deadline.signal);
    parent.abort(new Error('client went away'));
    expect(await reason).toEqual(new Error('client went away'));
    expect(deadline.timedOut).toBe(false);
    deadline.clear();
  });

  it('aborted by its parent, it does not count as timed out when its time then passes', async () => {
    const parent = new AbortController();
    const deadline = timeoutSignal(40, parent.signal);
    parent.abort(new Error('first'));
    await aborted(timeoutSignal(120).signal);
    expect(deadline.timedOut).toBe(false);
    expect(deadline.signal.reason).toEqual(new Error('first'));
  });

  it('starts aborted under a parent that already is', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    const deadline = timeoutSignal(60_000, parent.signal);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toEqual(new Error('gone'));
    deadline.clear();
  });

  it('once cleared, neither its time nor its parent aborts it', async () => {
    const parent = new AbortController();
    const deadline = timeoutSignal(30, parent.signal);
    deadline.clear();
    const later = timeoutSignal(120);
    await aborted(later.signal); // well past the first one's time
    parent.abort(new Error('after clear'));
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.timedOut).toBe(false);
  });
});
