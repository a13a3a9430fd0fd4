import type { TestProject } from 'vitest/node';
import { redisAnswers, startOwnedRedis, type OwnedRedis } from './redis-server.js';
import { build } from '../../scripts/build.mjs';

let owned: OwnedRedis | undefined;

/**
 * Compiles src/ to dist/ when the sources changed (what server processes run). Finds a Redis for the Redis
 * suites: REDIS_URL if set, else 127.0.0.1:6379 if it answers, else a redis-server started here on a free port.
 * The URL reaches tests as the provided value `redisUrl` (undefined only when no Redis can be had; under CI=true
 * that fails the run instead of skipping).
 */
export default async function setup(project: TestProject) {
  // Server processes run the compiled sources (dist/), as `npm start` does: compile them if they changed.
  await build();
  let url = process.env.REDIS_URL;
  if (!url && (await redisAnswers('127.0.0.1', 6379))) url = 'redis://127.0.0.1:6379';
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
