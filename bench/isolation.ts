/**
 * `npm run bench:isolation`: inlet latency of the same small filter in the main thread
 * (FILTER_ISOLATION=off) and in a worker thread (FILTER_ISOLATION=worker), over HTTP on
 * loopback and at the hook alone (runHook, no HTTP), for a small and a large chat body.
 */
import { runHook } from '../src/runtime/host/run-hook.js';
import { noFlags } from '../src/runtime/host/flags-host.js';
import { silentLogger } from '../src/core/util/logger.js';
import { quantile } from './lib/metrics.js';
import { markdownTable } from './lib/table.js';
import { formatMs, timeAsync } from './lib/timing.js';
import { startIsolationTarget, type IsolationTarget } from './lib/isolation-target.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
const WARMUP = 200;

function chat(messages: number): Record<string, unknown> {
  return {
    model: 'gpt-4o',
    messages: Array.from({ length: messages }, (_, index) => ({
      role: index % 2 ? 'assistant' : 'user',
      content: `message ${index}: ${'lorem ipsum dolor sit amet '.repeat(8)}`,
    })),
  };
}

async function measure(run: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let index = 0; index < WARMUP; index++) await run();
  const durations: number[] = [];
  for (let index = 0; index < RUNS; index++) durations.push(await timeAsync(run));
  return { p50: quantile(durations, 0.5), p99: quantile(durations, 0.99) };
}

function hookOnly(target: IsolationTarget, body: Record<string, unknown>) {
  const filter = target.runtime.registry.get('small')!;
  const logger = silentLogger();
  return () =>
    runHook({
      filter,
      hook: 'inlet',
      timeoutMs: 30_000,
      args: {
        body,
        user: { id: 'u' },
        valves: filter.valves,
        userValves: {},
        logger,
        state: filter.state,
        flags: noFlags(),
        services: target.runtime.services,
        eventsReachUser: false,
        emit: () => undefined,
        filterId: 'small',
        requestId: 'r',
        hook: 'inlet',
      },
    });
}

const targets = { main: await startIsolationTarget('off'), worker: await startIsolationTarget('worker') };
const rows: string[][] = [];
for (const size of [10, 500]) {
  const body = chat(size);
  const payload = JSON.stringify({ body, user: { id: 'u' } });
  const kb = `${Math.round(Buffer.byteLength(payload) / 1024)} KB`;
  for (const path of ['hook', 'HTTP'] as const) {
    const result: Record<string, { p50: number; p99: number }> = {};
    for (const [name, target] of Object.entries(targets)) {
      result[name] = await measure(path === 'hook' ? hookOnly(target, body) : () => target.post(payload));
    }
    const { main, worker } = result as Record<'main' | 'worker', { p50: number; p99: number }>;
    rows.push([
      `${size} (${kb})`,
      path,
      formatMs(main.p50),
      formatMs(main.p99),
      formatMs(worker.p50),
      formatMs(worker.p99),
      `${(worker.p50 / main.p50).toFixed(2)}×`,
      `${worker.p50 >= main.p50 ? '+' : '−'}${formatMs(Math.abs(worker.p50 - main.p50))}`,
    ]);
  }
}
for (const target of Object.values(targets)) await target.close();

console.log(
  `Inlet latency of the same small filter, main thread vs worker thread (${RUNS} runs after ${WARMUP} warm-up, sequential)\n`,
);
console.log(
  markdownTable(
    ['messages', 'path', 'main p50', 'main p99', 'worker p50', 'worker p99', 'ratio p50', 'cost p50'],
    rows,
  ),
);
