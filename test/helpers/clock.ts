import { vi } from 'vitest';
import { sleep } from './wait-for.js';

/**
 * The clock a time-dependent test moves forward. Where the code under test reads time in this
 * process (`Date.now()`: SQLite expiry, lease deadlines, flag TTLs), `fakeDateClock` moves it at
 * once and exactly; where a server outside keeps time (Redis key expiry), `realClock` waits.
 */
export interface TestClock {
  /** Call in beforeEach. */
  install(): void;
  /** Call in afterEach. */
  uninstall(): void;
  advance(ms: number): Promise<void>;
}

/** Fakes only `Date` (timers stay real, so I/O and store timeouts behave as in production). */
export const fakeDateClock: TestClock = {
  install: () => void vi.useFakeTimers({ toFake: ['Date'] }),
  uninstall: () => void vi.useRealTimers(),
  advance: async (ms) => void vi.setSystemTime(Date.now() + ms),
};

export const realClock: TestClock = {
  install: () => undefined,
  uninstall: () => undefined,
  advance: sleep,
};
