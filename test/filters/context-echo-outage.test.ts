import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { planContext } from '../../src/domain/engine/index.js';
import { readEchoBoost, recordEcho } from '../../src/features/context/echo/echo-loop.js';
import { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import { ScopedState } from '../../src/state/scoped-state.js';
import { freePort, redisServerBinary, startOwnedRedis } from '../helpers/redis-server.js';
import { tempDir } from '../helpers/temp-store.js';
import { captureLogger } from '../state/helpers/capture-logger.js';
import { EVIDENCE, toolChat } from './helpers/tool-log-chat.js';

/**
 * The echo loop when the state store does not answer: the outlet records nothing and the next inlet plans without
 * a boost, each saying so in the log, never an error; once the store answers again the loop works as before.
 * Redis is "down" because nothing listens on the chosen port; later an owned redis-server takes it.
 */
const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// The tool chat without its system message, and the reply that used the log's line 1,300.
const history = [
  ...toolChat().slice(1),
  { role: 'assistant', content: 'The nvme0n1 controller overheated; its error code was E4217.' },
];
const next = [...history, { role: 'user', content: 'When did that happen? Quote the whole line.' }];

describe.runIf(canRun)('the echo loop during a state store outage', () => {
  it('degrades to no boost with a log line, and works again once the store answers', async () => {
    const { logger, lines } = captureLogger();
    const { dir, remove } = tempDir('eunoe-echo-outage-');
    const port = await freePort();
    const store = new RedisStateStore({
      url: `redis://127.0.0.1:${port}`,
      prefix: 'eunoe-echo:',
      logger,
      timeoutMs: 200,
      queueMax: 100,
      maxRetryDelayMs: 100,
      flushRetryMs: 100,
      journalFile: path.join(dir, 'journal.db'),
    });
    cleanups.push(remove, () => store.close());
    const state = new ScopedState(store, 'f:context:');
    const args = { enabled: true, chatKey: 'chat:outage', state, logger };

    await expect(recordEcho({ ...args, messages: history })).resolves.toBeUndefined();
    await expect(readEchoBoost({ ...args, messages: next })).resolves.toBeUndefined();
    const said = lines.map((line) => `${line.msg} ${String(line.first ?? '')}`).join('\n');
    expect(said).toMatch(/echo state/);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    // Without the boost the follow-up plans as without the echo loop: the line is not in the trimmed result.
    const plain = planContext({ messages: next, model: 'gpt-4o', options: { maxTokens: 2000, recent: 2 } });
    expect(JSON.stringify(plain.messages)).not.toContain(EVIDENCE);

    const redis = await startOwnedRedis(port);
    cleanups.push(() => redis.stop());
    let boost: Awaited<ReturnType<typeof readEchoBoost>>;
    for (let attempt = 0; attempt < 100 && !boost; attempt += 1) {
      await recordEcho({ ...args, messages: history });
      boost = await readEchoBoost({ ...args, messages: next });
      if (!boost) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(boost?.terms).toEqual({ nvme0n1: 1, E4217: 1 });
    const boosted = planContext({
      messages: next,
      model: 'gpt-4o',
      options: { maxTokens: 2000, recent: 2 },
      echo: boost,
    });
    expect(JSON.stringify(boosted.messages)).toContain(EVIDENCE.replace(/"/g, '\\"'));
  });
});
