/**
 * `npm run bench:proxy`: overhead of the `openai-proxy` manifold on a streamed 500-chunk reply,
 * against calling the same loopback upstream directly, in the same run: 50 concurrent streams,
 * rounds alternating direct / through Eunoe. Eunoe (the real runtime: SQLite ledger, the proxy
 * recording every call), the upstream and the clients share this process and its event loop, so
 * what is measured is Eunoe's own work, not the scheduling of a second process on a busy machine.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { quantile } from './lib/metrics.js';
import { markdownTable } from './lib/table.js';
import { startStreamUpstream } from './lib/stream-upstream.js';
import { serveRuntime } from './lib/serve-runtime.js';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/runtime.js';
import { silentLogger } from '../src/util/logger.js';

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const KEY = 'bench-key';
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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
  if (response.statusCode !== 200 || !text.includes('[DONE]')) throw new Error(`bad answer ${response.statusCode}`);
  return { ttfb, total: performance.now() - start };
}

async function round(pool: Pool, pathname: string, model: string, headers: Record<string, string>): Promise<Sample[]> {
  const body = JSON.stringify({ model, stream: true, user: 'bench', messages: [{ role: 'user', content: 'go' }] });
  return Promise.all(
    Array.from({ length: CONCURRENCY }, () =>
      stream(pool, pathname, body, { 'content-type': 'application/json', ...headers }),
    ),
  );
}

/** Eunoe (the real runtime, SQLite ledger, the shipped proxy file) on loopback, pointed at `upstream`. */
async function startEunoe(upstream: string): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eunoe-bench-proxy-'));
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
  mkdirSync(path.join(dir, 'filters'));
  const source = readFileSync(path.join(repo, 'filters/openai-proxy.ts'), 'utf8').replaceAll(
    "'../src/",
    `'${path.join(repo, 'src')}/`,
  );
  writeFileSync(path.join(dir, 'filters/openai-proxy.ts'), source);
  const config = loadConfig(
    { PIPELINES_API_KEY: KEY, PRICING_FETCH: 'false', WATCH_FILTERS: 'false', LOG_LEVEL: 'silent' },
    dir,
  );
  const runtime = await createRuntime({ config, logger: silentLogger(), watch: false });
  const served = await serveRuntime(runtime, KEY, dir);
  const url = `http://127.0.0.1:${served.port}`;
  const update = await fetch(`${url}/openai-proxy/valves/update`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ base_url: upstream, api_key: 'sk-bench', models: 'bench-model' }),
  });
  if (!update.ok) throw new Error(`valves update failed: ${update.status}`);
  return { url, stop: () => served.close() };
}

const PACED_DELAY_MS = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 2);

/** One comparison: the same upstream called directly and through Eunoe, rounds alternating. */
async function compare(label: string, delayMs: number): Promise<void> {
  const upstream = await startStreamUpstream(CHUNKS, delayMs);
  const eunoe = await startEunoe(upstream.url);
  const direct = new Pool(upstream.url, { connections: CONCURRENCY, keepAliveTimeout: 60_000 });
  const proxied = new Pool(eunoe.url, { connections: CONCURRENCY, keepAliveTimeout: 60_000 });
  const auth = { authorization: `Bearer ${KEY}` };
  try {
    // Warm-up: connections, JIT, the ledger, the manifold's model list.
    await round(direct, '/chat/completions', 'bench-model', {});
    await round(proxied, '/v1/chat/completions', 'openai-proxy.bench-model', auth);
    const samples = { direct: [] as Sample[], proxy: [] as Sample[] };
    for (let index = 0; index < ROUNDS; index++) {
      samples.direct.push(...(await round(direct, '/chat/completions', 'bench-model', {})));
      samples.proxy.push(...(await round(proxied, '/v1/chat/completions', 'openai-proxy.bench-model', auth)));
    }
    const p50 = (values: Sample[], key: keyof Sample) =>
      quantile(
        values.map((sample) => sample[key]),
        0.5,
      );
    const rows: string[][] = [];
    for (const key of ['ttfb', 'total'] as const) {
      const base = p50(samples.direct, key);
      const through = p50(samples.proxy, key);
      rows.push([
        key === 'ttfb' ? 'time to first byte (p50)' : 'total time (p50)',
        `${base.toFixed(2)} ms`,
        `${through.toFixed(2)} ms`,
        `${(through - base).toFixed(2)} ms`,
        `${(through / base).toFixed(2)}×`,
      ]);
    }
    console.log(
      `\n${label}: ${CHUNKS}-chunk streamed replies, ${CONCURRENCY} concurrent streams, ${ROUNDS} rounds each (${samples.direct.length} requests per side)\n`,
    );
    console.log(markdownTable(['measure', 'upstream directly', 'through Eunoe', 'added', 'ratio'], rows));
  } finally {
    await direct.close();
    await proxied.close();
    await eunoe.stop();
    await upstream.close();
  }
}

await compare(`paced upstream (a chunk every ≥ ${PACED_DELAY_MS} ms, like a model generating)`, PACED_DELAY_MS);
await compare('burst upstream (chunks as fast as the loop turns: pure relay cost)', 0);
