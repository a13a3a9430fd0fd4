/**
 * `npm run bench:proxy`: overhead of the `openai-proxy` manifold on a streamed 500-chunk reply,
 * against calling the same loopback upstream directly, in the same run, rounds alternating
 * direct / through Eunoe / through a bare `node:http` relay (the floor any Node.js relay pays on this
 * machine, `lib/bare-relay-child.ts`). As in a real deployment, the upstream and Eunoe each run in their own
 * process (children of this one; Eunoe through its real server entry, `src/main.ts`, with the
 * SQLite ledger and the shipped proxy recording every call) and the clients run here.
 *
 * Env: BENCH_CHUNKS (500), BENCH_CONCURRENCY (50), BENCH_ROUNDS (8), BENCH_SINGLE_ROUNDS (20, the
 * one-stream comparisons; 0 skips them), BENCH_CHUNK_DELAY_MS (2, the paced upstream),
 * BENCH_FILTERS=1 (also load the shipped filters, so a direct caller gets the filter chain),
 * BENCH_PROFILE=<dir> (write a V8 CPU profile of Eunoe there, `node --cpu-prof`).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { quantile } from './lib/metrics.js';
import { markdownTable } from './lib/table.js';
import { forkServer, startServerEntry, type ChildServer } from './lib/child-server.js';

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SINGLE_ROUNDS = Number(process.env.BENCH_SINGLE_ROUNDS ?? 20);
const PACED_DELAY_MS = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 2);
const FILTERS = process.env.BENCH_FILTERS === '1';
const PROFILE_DIR = process.env.BENCH_PROFILE;
const KEY = 'bench-key';
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');

interface Sample {
  ttfb: number;
  total: number;
}

/** One streamed request: ms to the first body bytes (the first chunk) and to the end. */
async function stream(pool: Pool, pathname: string, body: string, headers: Record<string, string>): Promise<Sample> {
  const start = performance.now();
  const response = await pool.request({ path: pathname, method: 'POST', body, headers });
  let ttfb = 0;
  let text = '';
  for await (const piece of response.body) {
    if (!ttfb) ttfb = performance.now() - start;
    text += piece;
  }
  if (response.statusCode !== 200 || !text.includes('[DONE]'))
    throw new Error(`bad answer ${response.statusCode}: ${text.slice(0, 200)}`);
  return { ttfb, total: performance.now() - start };
}

async function round(
  pool: Pool,
  pathname: string,
  model: string,
  headers: Record<string, string>,
  concurrency: number,
): Promise<Sample[]> {
  const body = JSON.stringify({ model, stream: true, user: 'bench', messages: [{ role: 'user', content: 'go' }] });
  return Promise.all(
    Array.from({ length: concurrency }, () =>
      stream(pool, pathname, body, { 'content-type': 'application/json', ...headers }),
    ),
  );
}

/** Eunoe's real server entry in its own process, only the shipped proxy loaded (or every shipped filter), pointed at `upstream`. */
async function startEunoe(upstream: string, label: string): Promise<ChildServer & { dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eunoe-bench-proxy-'));
  mkdirSync(path.join(dir, 'filters'));
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR, label)}`] : [];
  const eunoe = await startServerEntry(
    path.join(repo, 'src/main.ts'),
    {
      PIPELINES_API_KEY: KEY,
      PRICING_FETCH: 'false',
      WATCH_FILTERS: 'false',
      LOG_LEVEL: 'silent',
      DATA_DIR: path.join(dir, 'data'),
      FILTERS_DIR: path.join(dir, 'filters'),
      VALVES_DIR: path.join(dir, 'valves'),
      SHIPPED_FILTERS: FILTERS ? 'all' : 'openai-proxy',
    },
    profile,
  );
  const update = await fetch(`${eunoe.url}/openai-proxy/valves/update`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ base_url: upstream, api_key: 'sk-bench', models: 'bench-model' }),
  });
  if (!update.ok) throw new Error(`valves update failed: ${update.status}`);
  return { ...eunoe, dir };
}

const p50 = (values: Sample[], key: keyof Sample) =>
  quantile(
    values.map((sample) => sample[key]),
    0.5,
  );
const load = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(', ')}`;

/** One comparison: the same upstream called directly and through Eunoe, rounds alternating. */
async function compare(label: string, delayMs: number, concurrency: number, rounds: number): Promise<void> {
  const upstream = await forkServer(path.join(here, 'lib/upstream-child.ts'), [String(CHUNKS), String(delayMs)]);
  const eunoe = await startEunoe(upstream.url, `${delayMs}ms-${concurrency}`);
  const relay = await forkServer(path.join(here, 'lib/bare-relay-child.ts'), [upstream.url]);
  const direct = new Pool(upstream.url, { connections: concurrency, keepAliveTimeout: 60_000 });
  const proxied = new Pool(eunoe.url, { connections: concurrency, keepAliveTimeout: 60_000 });
  const bare = new Pool(relay.url, { connections: concurrency, keepAliveTimeout: 60_000 });
  const auth = { authorization: `Bearer ${KEY}` };
  const loadBefore = load();
  try {
    // Warm-up: connections, JIT, the ledger, the manifold's model list.
    for (let index = 0; index < 2; index++) {
      await round(direct, '/chat/completions', 'bench-model', {}, concurrency);
      await round(proxied, '/v1/chat/completions', 'openai-proxy.bench-model', auth, concurrency);
      await round(bare, '/chat/completions', 'bench-model', {}, concurrency);
    }
    const samples = { direct: [] as Sample[], proxy: [] as Sample[], bare: [] as Sample[] };
    let eunoeCpu = 0;
    let upstreamCpu = 0;
    let relayCpu = 0;
    for (let index = 0; index < rounds; index++) {
      const upstreamBefore = upstream.cpuMs();
      samples.direct.push(...(await round(direct, '/chat/completions', 'bench-model', {}, concurrency)));
      upstreamCpu += upstream.cpuMs() - upstreamBefore;
      const cpuBefore = eunoe.cpuMs();
      samples.proxy.push(
        ...(await round(proxied, '/v1/chat/completions', 'openai-proxy.bench-model', auth, concurrency)),
      );
      eunoeCpu += eunoe.cpuMs() - cpuBefore;
      const relayBefore = relay.cpuMs();
      samples.bare.push(...(await round(bare, '/chat/completions', 'bench-model', {}, concurrency)));
      relayCpu += relay.cpuMs() - relayBefore;
    }
    const rows: string[][] = [];
    for (const key of ['ttfb', 'total'] as const) {
      const base = p50(samples.direct, key);
      const through = p50(samples.proxy, key);
      const floor = p50(samples.bare, key);
      rows.push([
        key === 'ttfb' ? 'time to first byte (p50)' : 'total time (p50)',
        `${base.toFixed(2)} ms`,
        `${through.toFixed(2)} ms`,
        `${(through - base).toFixed(2)} ms`,
        `${(through / base).toFixed(2)}×`,
        `${floor.toFixed(2)} ms (+${(floor - base).toFixed(2)} ms, ${(floor / base).toFixed(2)}×)`,
      ]);
    }
    const requests = samples.proxy.length;
    console.log(
      `\n${label}: ${CHUNKS}-chunk streamed replies, ${concurrency} concurrent stream(s), ${rounds} rounds each (${requests} requests per side)${FILTERS ? ', shipped filters in the chain' : ''}`,
    );
    console.log(`machine: ${load()} (before: ${loadBefore})\n`);
    console.log(
      markdownTable(['measure', 'upstream directly', 'through Eunoe', 'added', 'ratio', 'bare node:http relay'], rows),
    );
    const perRequest = (cpu: number) =>
      `${(cpu / requests).toFixed(2)} ms (${((cpu / requests / (CHUNKS + 3)) * 1000).toFixed(1)} µs per event)`;
    console.log(
      `\nCPU time per request: Eunoe relaying ${perRequest(eunoeCpu)}; the bare relay ${perRequest(relayCpu)}; the upstream generating ${perRequest(upstreamCpu)}`,
    );
  } finally {
    await direct.close();
    await proxied.close();
    await bare.close();
    await relay.stop();
    await eunoe.stop();
    await upstream.stop();
    rmSync(eunoe.dir, { recursive: true, force: true });
  }
}

console.log(`bench:proxy on ${process.version}, ${load()}`);
await compare(
  `paced upstream (a chunk every ≥ ${PACED_DELAY_MS} ms, like a model generating)`,
  PACED_DELAY_MS,
  CONCURRENCY,
  ROUNDS,
);
await compare('burst upstream (chunks as fast as the loop turns: pure relay cost)', 0, CONCURRENCY, ROUNDS);
if (SINGLE_ROUNDS > 0) {
  await compare(`paced upstream, one stream at a time`, PACED_DELAY_MS, 1, SINGLE_ROUNDS);
  await compare('burst upstream, one stream at a time', 0, 1, SINGLE_ROUNDS);
}
