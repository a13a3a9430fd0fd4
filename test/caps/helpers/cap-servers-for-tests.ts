import { afterAll, beforeAll } from 'vitest';
import type { ServerProcess } from '../../helpers/server-process.js';
import { startCapServers } from './near-cap-burst.js';

/**
 * The servers of startCapServers for the tests of a describe block: started in beforeAll (the array fills then),
 * stopped in afterAll.
 */
export function capServersForTests(
  label: string,
  redisUrl: string | undefined,
  spendValves?: Record<string, unknown>,
): ServerProcess[] {
  const servers: ServerProcess[] = [];
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const started = await startCapServers(label, redisUrl, spendValves);
    servers.push(...started.servers);
    stop = started.stop;
  }, 120_000);
  afterAll(async () => {
    await stop?.();
  });
  return servers;
}
