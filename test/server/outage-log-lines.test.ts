import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { redisServerBinary, startOwnedRedis } from '../helpers/redis-server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A Redis outage under load logs one line when it starts and one when it ends (with counts of what degraded in
 * between), not one warning per request and feature: a real server process with the shipped filters, 4 clients
 * looping over every hook, and a real redis-server the test stops and starts again.
 */
const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
const KEY = 'outage-logs-key-0123456789';
const OUTAGE_MS = Number(process.env.EUNOE_OUTAGE_MS ?? 3000);
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

async function hook(server: ServerProcess, filter: string, kind: 'inlet' | 'outlet', body: unknown, user: unknown) {
  const response = await fetch(`${server.url}/${filter}/filter/${kind}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ body, user }),
    signal: AbortSignal.timeout(20_000),
  });
  await response.arrayBuffer();
  return response.status;
}

/** One chat turn as Open WebUI makes it: every filter's inlet, then every outlet. */
async function turn(server: ServerProcess, client: number, index: number): Promise<number[]> {
  const user = { id: `u-${client}`, email: `u${client}@example.com`, role: 'user' };
  const chatId = `c-${client}`;
  const messages = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: `Question ${index}: what about the plan? !+pin` },
  ];
  const inletBody = { model: 'openai/gpt-4o', messages, metadata: { chat_id: chatId }, chat_id: chatId };
  const statuses: number[] = [];
  for (const filter of ['spend-limit', 'context', 'turn-limit', 'accounting'])
    statuses.push(await hook(server, filter, 'inlet', inletBody, user));
  const id = `m-${client}-${index}-${randomUUID()}`;
  const outletBody = {
    model: 'openai/gpt-4o',
    chat_id: chatId,
    id,
    messages: [
      ...messages,
      { id, role: 'assistant', content: 'The plan is fine.', usage: { prompt_tokens: 30, completion_tokens: 6 } },
    ],
  };
  for (const filter of ['context', 'accounting']) statuses.push(await hook(server, filter, 'outlet', outletBody, user));
  return statuses;
}

async function outageUnderLoad(kind: 'stopped' | 'paused') {
  const { dir, remove } = tempDir('eunoe-outage-logs-');
  cleanups.push(remove);
  const redis = await startOwnedRedis();
  cleanups.push(() => redis.stop());
  cleanups.push(() => redis.resume());
  const server = await startServerProcess({
    DATA_DIR: dir,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `eunoe-outage-logs:${randomUUID()}:`,
    STATE_TIMEOUT_MS: '200',
    SHIPPED_FILTERS: 'spend-limit,context,turn-limit,accounting',
    PIPELINES_API_KEY: KEY,
    LOG_LEVEL: 'info',
  });
  cleanups.push(() => server.stop());

  let phase: 'before' | 'outage' | 'after' | 'done' = 'before';
  const turns = { before: 0, outage: 0, after: 0 };
  const failures: number[] = [];
  const clients = Array.from({ length: 4 }, async (_, client) => {
    for (let index = 0; phase !== 'done' && index < 10_000; index++) {
      const at = phase as 'before' | 'outage' | 'after';
      const statuses = await turn(server, client, index);
      failures.push(...statuses.filter((status) => status !== 200));
      turns[at] += 1;
    }
  });
  await waitFor(() => turns.before >= 8, { timeoutMs: 30_000 });
  const startOffset = server.output().length;
  if (kind === 'stopped') await redis.stop();
  else redis.pause();
  phase = 'outage';
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  if (kind === 'stopped') await redis.start();
  else redis.resume();
  phase = 'after';
  await waitFor(
    async () => {
      const response = await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${KEY}` } });
      return response.status === 200;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  await waitFor(() => turns.after >= 8, { timeoutMs: 30_000 });
  // The end line comes with the first answer after 1 s without failures (a hung store's last calls time out late).
  await waitFor(() => /is back after|answers again after/.test(server.output().slice(startOffset)), {
    timeoutMs: 30_000,
  });
  phase = 'done';
  await Promise.all(clients);

  // The access log and the context filter's plan are one info line per request with or without an outage.
  const perRequest = new Set(['request', 'context planned']);
  const logLines = (text: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .filter((line) => !perRequest.has((JSON.parse(line) as LogLine).msg));
  const output = server.output();
  const before = logLines(output.slice(0, startOffset));
  // The outage's lines: from its start line to its end line. On a busy machine a store call can time out just before
  // the stop, so the outage may start (once) a moment before it: its start line then comes before startOffset.
  const msgOf = (line: string) => (JSON.parse(line) as LogLine).msg;
  const lastStart = before.findLastIndex((line) => /unavailable/.test(msgOf(line)));
  const lastEnd = before.findLastIndex((line) => /is back after|answers again after/.test(msgOf(line)));
  const kept = [...(lastStart > lastEnd ? [before[lastStart]!] : []), ...logLines(output.slice(startOffset))];
  const lines = kept.map((line) => JSON.parse(line) as LogLine);
  const bytes = kept.reduce((sum, line) => sum + line.length + 1, 0);
  const byMessage = new Map<string, number>();
  for (const line of lines) byMessage.set(line.msg.slice(0, 100), (byMessage.get(line.msg.slice(0, 100)) ?? 0) + 1);
  console.log(
    `Redis ${kind} ${OUTAGE_MS} ms, ${turns.outage} turns during it (${turns.outage * 6} hook calls): ` +
      `${lines.length} lines besides the per-request ones (${lines.filter((line) => line.level >= 40).length} at WARN or above), ${bytes} bytes\n` +
      [...byMessage].map(([message, count]) => `  ${count} × ${message}`).join('\n') +
      `\n  degraded: ${JSON.stringify(lines.find((line) => line.degraded)?.degraded)}`,
  );
  return { lines, turns, failures };
}

describe.runIf(canRun)('log lines during a Redis outage under load', () => {
  it.each(['stopped', 'paused'] as const)(
    `Redis %s (${OUTAGE_MS} ms, 4 clients): one line when it starts, one when it ends with the counts`,
    async (kind) => {
      const { lines, turns, failures } = await outageUnderLoad(kind);
      expect(failures).toEqual([]);
      expect(turns.outage).toBeGreaterThan(0); // a hung store makes each turn wait for its timeouts
      expect(lines.filter((line) => line.level >= 40)).toHaveLength(1);
      expect(lines.filter((line) => line.err && typeof line.err === 'object')).toEqual([]); // no stack traces
      const end = lines.find((line) => line.level === 30 && /is back after|answers again after/.test(line.msg));
      expect(end).toBeDefined();
      const degraded = end!.degraded as Record<string, number>;
      // Every turn during the outage fell back at least once (flags, user valves, spend limits …): all counted.
      expect(Object.values(degraded).reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(turns.outage);
      expect(Object.keys(degraded).join()).toMatch(/flag state/);
      expect(lines.length).toBeLessThanOrEqual(3); // start, end, and at most the journal's flush line
    },
  );
});
