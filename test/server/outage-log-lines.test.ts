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
  // What the server logs while it starts (a folder it made private, say) is not about the outage.
  const startupBytes = server.output().length;

  let phase: 'before' | 'outage' | 'after' | 'done' = 'before';
  const turns = { before: 0, outage: 0, after: 0 };
  let outageStart = Number.POSITIVE_INFINITY;
  let outageEnd = Number.POSITIVE_INFINITY;
  /** Turns in progress at some moment of the outage (a turn against a hung store can span all of it). */
  let overlapping = 0;
  const failures: number[] = [];
  const clients = Array.from({ length: 4 }, async (_, client) => {
    for (let index = 0; phase !== 'done' && index < 10_000; index++) {
      const at = phase as 'before' | 'outage' | 'after';
      const startedAt = Date.now();
      const statuses = await turn(server, client, index);
      failures.push(...statuses.filter((status) => status !== 200));
      turns[at] += 1;
      if (startedAt <= outageEnd && Date.now() >= outageStart) overlapping += 1;
    }
  });
  await waitFor(() => turns.before >= 8, { timeoutMs: 30_000 });
  outageStart = Date.now();
  if (kind === 'stopped') await redis.stop();
  else redis.pause();
  phase = 'outage';
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  // Redis answers again from here on: the server's clients may see it (and log the end line) before start() returns.
  const restartAt = Date.now();
  if (kind === 'stopped') await redis.start();
  else redis.resume();
  outageEnd = Date.now();
  phase = 'after';
  await waitFor(
    async () => {
      const response = await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${KEY}` } });
      return response.status === 200;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  await waitFor(() => turns.after >= 8, { timeoutMs: 30_000 });
  const isEnd = (line: LogLine) => line.level === 30 && /is back after|answers again after/.test(line.msg);
  const isStart = (line: LogLine) => line.level >= 40 && /unavailable/.test(line.msg);
  // The access log and the context filter's plan are one info line per request with or without an outage.
  const perRequest = new Set(['request', 'context planned']);
  const logLines = () =>
    server
      .output()
      .slice(startupBytes)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => ({ line: JSON.parse(line) as LogLine, bytes: line.length + 1 }))
      .filter(({ line }) => !perRequest.has(line.msg));
  // The end line comes with the first answer after 1 s without failures (a hung store's last calls time out late),
  // once Redis is back: the first end line logged after the restart began.
  const endOf = () => logLines().findIndex(({ line }) => isEnd(line) && Date.parse(String(line.time)) >= restartAt);
  await waitFor(() => endOf() >= 0, { timeoutMs: 30_000 });
  phase = 'done';
  await Promise.all(clients);

  // The outage the test made: from the last start line before its end line, to that end line. On a busy machine a
  // store call can also time out on its own (200 ms) before or after it: that is an outage of its own, with its own
  // start and end lines, outside this window.
  const all = logLines();
  const end = endOf();
  const start = all.slice(0, end).findLastIndex(({ line }) => isStart(line));
  const window = all.slice(start, end + 1);
  const lines = window.map(({ line }) => line);
  const outside = [...all.slice(0, Math.max(start, 0)), ...all.slice(end + 1)].map(({ line }) => line);
  const bytes = window.reduce((sum, { bytes }) => sum + bytes, 0);
  const byMessage = new Map<string, number>();
  for (const line of lines) byMessage.set(line.msg.slice(0, 100), (byMessage.get(line.msg.slice(0, 100)) ?? 0) + 1);
  console.log(
    `Redis ${kind} ${OUTAGE_MS} ms, ${overlapping} turns during it (${turns.outage} started in it): ` +
      `${lines.length} lines besides the per-request ones (${lines.filter((line) => line.level >= 40).length} at WARN or above), ${bytes} bytes\n` +
      [...byMessage].map(([message, count]) => `  ${count} × ${message}`).join('\n') +
      `\n  degraded: ${JSON.stringify(lines.find((line) => line.degraded)?.degraded)}` +
      `\n  outside the outage: ${outside.filter((line) => line.level >= 40).length} lines at WARN or above`,
  );
  return {
    lines,
    outside,
    startedAt: start >= 0 ? Date.parse(String(all[start]!.line.time)) : Number.NaN,
    outageEnd,
    overlapping,
    turnsStarted: turns.outage,
    failures,
    unhandled: server.output().match(/.*Unhandled error event.*/g) ?? [],
  };
}

describe.runIf(canRun)('log lines during a Redis outage under load', () => {
  it.each(['stopped', 'paused'] as const)(
    `Redis %s (${OUTAGE_MS} ms, 4 clients): one line when it starts, one when it ends with the counts`,
    async (kind) => {
      const { lines, outside, startedAt, outageEnd, overlapping, turnsStarted, failures, unhandled } =
        await outageUnderLoad(kind);
      expect(failures).toEqual([]);
      expect(overlapping).toBeGreaterThan(0); // the clients kept calling through the outage
      expect(startedAt).toBeLessThanOrEqual(outageEnd); // its start line came while the store was down
      expect(lines.filter((line) => line.level >= 40)).toHaveLength(1); // the start line, nothing per request
      expect(lines.filter((line) => line.err && typeof line.err === 'object')).toEqual([]); // no stack traces
      const end = lines.at(-1)!;
      expect(end.msg).toMatch(/is back after|answers again after/);
      const degraded = end.degraded as Record<string, number>;
      // Every turn started during the outage fell back at least once (flags, user valves, spend limits …): all counted.
      expect(Object.values(degraded).reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(
        Math.max(turnsStarted, 1),
      );
      expect(Object.keys(degraded).join()).toMatch(/flag state/);
      expect(lines.length).toBeLessThanOrEqual(3); // start, end, and at most the journal's flush line
      // Outside it, anything at WARN is the start of another (short) outage, never a per-request warning.
      for (const line of outside.filter((line) => line.level >= 40)) expect(line.msg).toMatch(/unavailable/);
      // No connection of the server's (the pub/sub one included) writes ioredis' own error lines to stderr meanwhile.
      expect(unhandled).toEqual([]);
    },
  );
});
