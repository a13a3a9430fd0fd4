/**
 * Load benchmark over real HTTP on 127.0.0.1 (a child server process, SQLite state in a temp dir):
 * 1. spend-limited inlet throughput with 1k / 10k / 100k ledger records for the user, next to the
 *    same inlet without a cap (target: ratio ≥ 0.8 at 100k);
 * 2. inlet and outlet throughput, p50/p99 and server RSS at 16 and 64 concurrent clients;
 * 3. `GET /` latency while `/usage` and 0 / 4 / 16 spend-limited inlet clients run on the 100k user
 *    (target p99 < 20 ms up to 4 inlet clients; 16 saturate the server, so `/` queues behind them);
 * 4. the near-cap burst (lib/load/spend-burst.ts), a user's cap and a group's: final spend as % of a $0.10 cap after 1 / 16 / 32 looping
 *    clients, on SQLite and across two Redis replicas when a Redis answers (target ≤ 105 %); and by kind of model
 *    (lib/load/model-burst.ts): a priced, an unpriced-with-reported-cost and a workspace model at 1 / 32 / 64 clients
 *    (target ≤ 100 % + one reply's cost, 107.5 %);
 * 5. `GET /` p50/max while a 20 MB question runs through the context filter and through a pass-through filter
 *    (lib/load/huge-message.ts);
 * 6. outlets per second and p99 with the state on one Redis node, behind Sentinel and on a three-primary Cluster
 *    (lib/load/topologies.ts: real redis-server processes started here, two Eunoe replicas each).
 * Bounded: each phase BENCH_PHASE_MS (2000) or BENCH_MAX_REQUESTS (50,000), the whole run BENCH_MAX_MS
 * (600,000); stops its server by itself. BENCH_SIZES="1000,10000,100000"; BENCH_CODE_ROOT runs the same
 * benchmark against another checkout of Eunoe (e.g. an older commit, for before/after figures).
 * Run: npm run bench:load
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownTable } from './lib/table.js';
import { startBenchServer, type BenchServer } from './lib/load/bench-server.js';
import { startProbe, runLoad, type LoadRequest, type LoadResult } from './lib/load/run-load.js';
import { seedLedger } from './lib/load/seed-ledger.js';
import { hugeMessageScenario } from './lib/load/huge-message.js';
import { runSpendBurst } from './lib/load/spend-burst.js';
import { BOUND_PERCENT, runModelBurst } from './lib/load/model-burst.js';
import { outletRequest, topologyScenario } from './lib/load/topologies.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const codeRoot = path.resolve(process.env.BENCH_CODE_ROOT ?? repoRoot);
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 2000);
const MAX_REQUESTS = Number(process.env.BENCH_MAX_REQUESTS ?? 50_000);
const MAX_MS = Number(process.env.BENCH_MAX_MS ?? 600_000);
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const KEY = 'bench-load-key';
const ROUNDS = 4;

/** Rounds of one load as one result: total requests over total time; the worst p50/p99 of the rounds. */
function combine(rounds: LoadResult[]): LoadResult {
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0);
  const seconds = rounds.reduce((sum, round) => sum + round.requests / round.perSecond, 0);
  return {
    requests,
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    perSecond: requests / seconds,
    p50Ms: Math.max(...rounds.map((round) => round.p50Ms)),
    p99Ms: Math.max(...rounds.map((round) => round.p99Ms)),
    maxMs: Math.max(...rounds.map((round) => round.maxMs)),
  };
}

const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const inlet = (userId: string): LoadRequest => ({
  method: 'POST',
  path: '/spend-limit/filter/inlet',
  body: {
    user: { id: userId, email: `${userId}@example.com`, role: 'user' },
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], metadata: { chat_id: 'c1' } },
  },
});
const outlet = (id: string): LoadRequest => outletRequest(id, 'bench-outlet');

function prepare(root: string) {
  const filters = path.join(root, 'filters');
  const valves = path.join(root, 'valves');
  mkdirSync(filters);
  mkdirSync(valves);
  for (const name of ['spend-limit.ts', 'accounting.ts']) {
    const target = path.join(filters, name);
    copyFileSync(path.join(codeRoot, 'filters', name), target);
    writeFileSync(target, readFileSync(target, 'utf8').replaceAll("'../src/", `'${path.join(codeRoot, 'src')}/`));
  }
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
  // A monthly cap nobody reaches, so every inlet reads the spend and passes; `free-*` users have no cap.
  const free = Object.fromEntries(SIZES.map((size) => [`free-${size}`, { monthly_usd: 0, daily_usd: 0 }]));
  writeFileSync(
    path.join(valves, 'spend-limit.json'),
    JSON.stringify({ monthly_limit_usd: 1_000_000, user_limits: free }),
  );
  return { filters, valves };
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-bench-load-'));
  let server: BenchServer | undefined;
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench:load stopped after ${MAX_MS} ms\n`);
    void server?.stop().finally(() => process.exit(2));
  }, MAX_MS);
  try {
    const { filters, valves } = prepare(root);
    const dataDir = path.join(root, 'data');
    mkdirSync(dataDir);
    const seconds = await seedLedger(
      codeRoot,
      path.join(dataDir, 'eunoe.db'),
      SIZES.map((size) => ({ id: `cap-${size}`, count: size })),
    );
    console.log(
      `code: ${codeRoot}\nseeded ${SIZES.join(' / ')} records for one user each in ${fmt(seconds)} s; phases of ${PHASE_MS} ms\n`,
    );
    server = await startBenchServer(codeRoot, {
      PIPELINES_API_KEY: KEY,
      DATA_DIR: dataDir,
      FILTERS_DIR: filters,
      VALVES_DIR: valves,
    });
    const url = server.url;
    const load = (concurrency: number, next: (index: number) => LoadRequest, durationMs = PHASE_MS) =>
      runLoad({ url, apiKey: KEY, concurrency, durationMs, maxRequests: MAX_REQUESTS, next });
    await load(16, () => inlet('warm-up'), 1500);

    // 'scaling', 'hooks', 'responsiveness', 'huge', 'spend-burst', 'model-burst' or 'topologies' to run one part
    const only = process.env.BENCH_ONLY;
    if (!only || only === 'scaling') {
      console.log('### Spend-limited inlet vs the same inlet without a cap (16 clients)\n');
      const scaling: string[][] = [];
      let ratioAtLargest = Number.NaN;
      for (const size of SIZES) {
        // Interleaved rounds, so drift in the machine's load hits both sides alike.
        const cappedRounds: LoadResult[] = [];
        const freeRounds: LoadResult[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          cappedRounds.push(await load(16, () => inlet(`cap-${size}`), PHASE_MS / ROUNDS));
          freeRounds.push(await load(16, () => inlet(`free-${size}`), PHASE_MS / ROUNDS));
        }
        const capped = combine(cappedRounds);
        const free = combine(freeRounds);
        const ratio = capped.perSecond / free.perSecond;
        ratioAtLargest = ratio;
        scaling.push([
          String(size),
          fmt(capped.perSecond, 0),
          fmt(capped.p50Ms, 2),
          fmt(capped.p99Ms, 2),
          fmt(free.perSecond, 0),
          fmt(ratio, 2),
          String(capped.errors + free.errors),
        ]);
      }
      console.log(
        markdownTable(['records/user', 'capped req/s', 'p50 ms', 'p99 ms', 'no cap req/s', 'ratio', 'errors'], scaling),
      );
      console.log(
        `\nratio at ${SIZES.at(-1)} records: ${fmt(ratioAtLargest, 2)} (target ≥ 0.8): ${ratioAtLargest >= 0.8 ? 'PASS' : 'MISS'}\n`,
      );
    }
    const largest = SIZES.at(-1)!;
    if (!only || only === 'hooks') {
      console.log('### Inlet (spend-limited, largest user) and outlet (accounting, new message ids)\n');
      const rows: string[][] = [];
      const row = (hook: string, clients: number, result: LoadResult) =>
        rows.push([
          hook,
          String(clients),
          fmt(result.perSecond, 0),
          fmt(result.p50Ms, 2),
          fmt(result.p99Ms, 2),
          String(result.errors),
          fmt(server!.rssMb(), 0),
        ]);
      for (const clients of [16, 64]) {
        row('inlet', clients, await load(clients, () => inlet(`cap-${largest}`)));
        const run = Math.random().toString(36).slice(2, 8);
        row('outlet', clients, await load(clients, (index) => outlet(`out-${run}-${clients}-${index}`)));
      }
      console.log(markdownTable(['hook', 'clients', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'RSS MiB'], rows));
    }
    if (!only || only === 'responsiveness') {
      console.log(
        `\n### GET / (1 client, one request at a time) while /usage (2 clients) and spend-limited inlets run on the ${largest}-record user\n`,
      );
      const usagePaths = [
        `/usage?user=cap-${largest}`,
        `/usage?user=cap-${largest}&group_by=day`,
        `/usage?user=cap-${largest}&format=csv`,
      ];
      const responsiveness: string[][] = [];
      let worstP99 = 0;
      for (const inletClients of [0, 4, 16]) {
        const measuring = await startProbe(url, PHASE_MS);
        const [probe, usage, inlets] = await Promise.all([
          measuring.result,
          load(2, (index) => ({ method: 'GET', path: usagePaths[index % usagePaths.length]! })),
          inletClients > 0 ? load(inletClients, () => inlet(`cap-${largest}`)) : undefined,
        ]);
        if (inletClients <= 4) worstP99 = Math.max(worstP99, probe.p99Ms);
        responsiveness.push([
          String(inletClients),
          fmt(probe.p50Ms, 2),
          fmt(probe.p99Ms, 2),
          fmt(probe.maxMs, 2),
          String(usage.requests),
          fmt(usage.p50Ms, 0),
          inlets ? fmt(inlets.perSecond, 0) : '–',
          String(probe.errors + usage.errors + (inlets?.errors ?? 0)),
        ]);
      }
      console.log(
        markdownTable(
          [
            'inlet clients',
            'GET / p50 ms',
            'p99 ms',
            'max ms',
            '/usage answered',
            '/usage p50 ms',
            'inlet req/s',
            'errors',
          ],
          responsiveness,
        ),
      );
      console.log(
        `\nGET / p99 with /usage and up to 4 inlet clients: ${fmt(worstP99, 2)} ms (target < 20 ms): ${worstP99 < 20 ? 'PASS' : 'MISS'}`,
      );
    }
    // A 20 MB question through the context filter and through a pass-through filter (a server of its own).
    if (!only || only === 'huge') await hugeMessageScenario({ codeRoot, root, apiKey: KEY });
    if (!only || only === 'spend-burst') {
      console.log(
        "\n### Near-cap burst: final spend as % of a $0.10 monthly cap, a user's and a group's of 8 (servers of its own)\n",
      );
      const burst = await runSpendBurst({ codeRoot, root: path.join(root, 'spend-burst'), apiKey: KEY });
      console.log(burst.table);
      const verdict = burst.worstPercent <= 105 ? 'PASS' : 'MISS';
      console.log(`\nlargest final spend: ${fmt(burst.worstPercent, 1)} % of the cap (target ≤ 105 %): ${verdict}`);
    }
    if (!only || only === 'spend-burst' || only === 'model-burst') {
      console.log(
        '\n### Near-cap burst by kind of model: final spend as % of a $0.10 monthly cap, from $0.05 (servers of its own)\n',
      );
      const byModel = await runModelBurst({ codeRoot, root: path.join(root, 'model-burst'), apiKey: KEY });
      console.log(byModel.table);
      const verdict = byModel.worstPercent <= BOUND_PERCENT ? 'PASS' : 'MISS';
      console.log(
        `\nlargest final spend: ${fmt(byModel.worstPercent, 1)} % of the cap (target ≤ ${fmt(BOUND_PERCENT, 1)} %, the cap + one reply): ${verdict}`,
      );
    }
    if (!only || only === 'topologies') {
      console.log('\n### Redis topologies: accounting outlets (new ids, 200 users), 16 clients over two replicas\n');
      console.log(
        await topologyScenario({
          codeRoot,
          root: path.join(root, 'topologies'),
          apiKey: KEY,
          phaseMs: PHASE_MS,
          maxRequests: MAX_REQUESTS,
        }),
      );
    }
  } finally {
    clearTimeout(watchdog);
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
