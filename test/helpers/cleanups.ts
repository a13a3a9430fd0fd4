import { afterEach } from 'vitest';

/** A list of cleanups run after each test, the last pushed first. */
export function cleanupsAfterEach(): Array<() => Promise<void> | void> {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}
