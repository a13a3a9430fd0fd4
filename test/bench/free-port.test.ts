import net from 'node:net';
import { expect, it } from 'vitest';
import { freePort } from '../../bench/lib/free-port.js';

/** Listen on `port` until the returned close function is called. */
function hold(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(() => new Promise((done) => server.close(() => done()))));
  });
}

it("a vitest worker's ports come from its own block below the ephemeral range, each once, skipping ports in use", async () => {
  const block = Number(process.env.VITEST_POOL_ID);
  expect(block).toBeGreaterThanOrEqual(1);
  const first = await freePort();
  const low = 20_000 + (block - 1) * 1_000;
  expect(first).toBeGreaterThanOrEqual(low);
  expect(first).toBeLessThan(low + 1_000);
  // The next port of the block is taken by someone else: it is skipped.
  const expectedNext = low + ((first - low + 1) % 1_000);
  const release = await hold(expectedNext).catch(() => undefined);
  try {
    const second = await freePort();
    expect(second).not.toBe(first);
    expect(second).not.toBe(expectedNext);
    expect(second).toBeGreaterThanOrEqual(low);
    expect(second).toBeLessThan(low + 1_000);
  } finally {
    await release?.();
  }
});
