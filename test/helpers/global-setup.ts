import type { TestProject } from 'vitest/node';
import { startOwnedRedis, type OwnedRedis } from './redis-server.js';
import { build } from '../../scripts/build.mjs';

let owned: OwnedRedis | undefined;

/**
 * Compiles src/ to dist/ when the sources changed (what server processes run). Starts the Redis of the Redis suites:
 * a redis-server of its own on a free port (never a Redis that happens to answer on 6379, such as Open WebUI's own),
 * unless EUNOE_TEST_REDIS_URL names one to use instead (its data under the tests' prefixes is theirs to write and
 * delete). REDIS_URL is a server setting and is not read here. The URL reaches tests as the provided value `redisUrl`
 * (undefined only when no redis-server can be started; under CI=true that fails the run instead of skipping).
 */
export default async function setup(project: TestProject) {
  // Server processes run the compiled sources (dist/), as `npm start` does: compile them if they changed.
  await build();
  let url = process.env.EUNOE_TEST_REDIS_URL || undefined;
  if (!url) {
    try {
      owned = await startOwnedRedis();
      url = owned.url;
    } catch (error) {
      if (process.env.CI) throw new Error(`No Redis for the Redis suites under CI: ${(error as Error).message}`);
      console.warn(`[eunoe tests] Redis suites will be skipped: ${(error as Error).message}`);
    }
  }
  project.provide('redisUrl', url ?? '');
  return async () => {
    await owned?.stop();
  };
}
