/**
 * The memory limit of a filter worker, on what it really holds: its V8 heap plus the memory outside
 * the heap it owns (Buffers, ArrayBuffers, typed arrays, external strings). `resourceLimits` bounds
 * only the heap; this bounds the sum. Runs inside the worker (Node 20 cannot read another thread's
 * isolate), on a timer while hooks run and at the end of each hook; each sample is also written to
 * the worker's heartbeat, which the host reads when the worker's event loop is blocked
 * (memory-watch.ts). Runs inside the worker; the host uses only the heartbeat's layout.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Samples while at least one hook runs, and at rest (the filter's own timers may allocate). */
export const BUSY_SAMPLE_MS = 10;
export const IDLE_SAMPLE_MS = 1000;

/** The heartbeat: a Float64Array over a SharedArrayBuffer, [time of the last sample (ms), bytes held then]. */
export const HEARTBEAT_TIME = 0;
export const HEARTBEAT_HELD = 1;
export const HEARTBEAT_BYTES = 2 * Float64Array.BYTES_PER_ELEMENT;

export interface HeldMemory {
  heapBytes: number;
  externalBytes: number;
}

/** What this thread's isolate holds now (garbage not yet collected included). */
export function heldMemory(): HeldMemory {
  const stats = v8.getHeapStatistics();
  return { heapBytes: stats.used_heap_size, externalBytes: stats.external_memory };
}

/**
 * A full collection of this isolate, so that a limit is judged on live memory only (V8 itself
 * collects before a heap out-of-memory). `gc` is taken from a context made while `--expose-gc` is
 * set for that moment only; undefined where the flag cannot be set.
 */
function fullCollection(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void; // node --expose-gc: leave the flag alone
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

export interface MemoryGuard {
  /** A hook started / ended: sample often while any runs. */
  callStarted(): void;
  callEnded(): void;
  /** Sample now; false once the limit was passed (`onExceeded` was called, the worker is ending). */
  check(): boolean;
}

/**
 * Watch this worker's memory against `limitBytes`. Over the limit, a full collection runs first;
 * still over, `onExceeded` is called once (the host then terminates the worker).
 */
export function startMemoryGuard(
  limitBytes: number,
  heartbeat: Float64Array,
  onExceeded: (held: HeldMemory) => void,
): MemoryGuard {
  const collect = fullCollection();
  let exceeded = false;
  let running = 0;
  let busyTimer: NodeJS.Timeout | undefined;
  const check = (): boolean => {
    if (exceeded) return false;
    let held = heldMemory();
    heartbeat[HEARTBEAT_TIME] = Date.now();
    heartbeat[HEARTBEAT_HELD] = held.heapBytes + held.externalBytes;
    if (held.heapBytes + held.externalBytes <= limitBytes) return true;
    if (collect) {
      collect();
      held = heldMemory();
      if (held.heapBytes + held.externalBytes <= limitBytes) return true;
    }
    exceeded = true;
    clearInterval(busyTimer);
    clearInterval(idleTimer);
    onExceeded(held);
    return false;
  };
  const idleTimer = setInterval(check, IDLE_SAMPLE_MS).unref();
  // The busy timer stops itself once no hook runs (not at each hook's end: back-to-back hooks share it).
  const busyTick = () => {
    if (running > 0) check();
    else {
      clearInterval(busyTimer);
      busyTimer = undefined;
    }
  };
  return {
    callStarted() {
      heartbeat[HEARTBEAT_TIME] = Date.now();
      running++;
      if (!busyTimer && !exceeded) busyTimer = setInterval(busyTick, BUSY_SAMPLE_MS).unref();
    },
    callEnded() {
      running--;
    },
    check,
  };
}
