import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { markdownTable } from '../table.js';
import { startRedisCluster, startRedisSentinel, startRedisSingle, type LocalTopology } from '../redis-topologies.js';
import { startBenchServer, type BenchServer } from './bench-server.js';
import { runLoad, type LoadRequest, type LoadResult } from './run-load.js';

const TOPOLOGIES: Array<{ name: string; start: () => Promise<LocalTopology> }> = [
  { name: 'single node', start: startRedisSingle },
  { name: 'Sentinel (1 primary, 1 replica, 3 sentinels)', start: () => startRedisSentinel() },
  { name: 'Cluster (3 primaries)', start: () => startRedisCluster() },
];

/** An accounting outlet for a new message id from `userId` (each record: ledger, user copy, counters). */
export function outletRequest(id: string, userId: string): LoadRequest {
  return {
    method: 'POST',
    path: '/accounting/filter/outlet',
    body: {
      user: { id: userId, role: 'user' },
      body: {
        model: 'openai/gpt-4o',
        chat_id: 'c1',
        id,
        messages: [
          { id: `${id}-q`, role: 'user', content: 'q' },
          {
            id,
            role: 'assistant',
            content: 'a',
            usage: { prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050 },
          },
        ],
      },
    },
  };
}

/**
 * Outlets per second and p99 with the state on one Redis node, behind Sentinel and on a three-primary Cluster, all
 * started here on loopback (real redis-server processes) with two Eunoe replicas each; the clients alternate between
 * the replicas. Each topology: a warm-up, then `rounds` rounds of `phaseMs`, interleaved with the other topologies so
 * drift in the machine's load hits all alike.
 */
export async function topologyScenario(options: {
  codeRoot: string;
  root: string;
  apiKey: string;
  phaseMs: number;
  maxRequests: number;
  clients?: number;
  rounds?: number;
}): Promise<string> {
  const { codeRoot, root, apiKey } = options;
  const clients = options.clients ?? 16;
  const rounds = options.rounds ?? 3;
  const filters = path.join(root, 'filters');
  mkdirSync(filters, { recursive: true });
  const target = path.join(filters, 'accounting.ts');
  copyFileSync(path.join(codeRoot, 'filters', 'accounting.ts'), target);
  writeFileSync(target, readFileSync(target, 'utf8').replaceAll("'../src/", `'${path.join(codeRoot, 'src')}/`));
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
  const running: Array<{ name: string; topology: LocalTopology; servers: BenchServer[]; results: LoadResult[] }> = [];
  try {
    for (const { name, start } of TOPOLOGIES) {
      const topology = await start();
      const entry = { name, topology, servers: [] as BenchServer[], results: [] as LoadResult[] };
      running.push(entry);
      for (const replica of ['a', 'b'])
        entry.servers.push(
          await startBenchServer(codeRoot, {
            ...topology.env,
            REDIS_PREFIX: 'bench:',
            PIPELINES_API_KEY: apiKey,
            FILTERS_DIR: filters,
            SHIPPED_FILTERS: 'none',
            DATA_DIR: path.join(root, `${running.length}-${replica}`),
          }),
        );
    }
    const load = async (servers: BenchServer[], run: string, durationMs: number) => {
      const perServer = await Promise.all(
        servers.map((server, replica) =>
          runLoad({
            url: server.url,
            apiKey,
            concurrency: clients / servers.length,
            durationMs,
            maxRequests: options.maxRequests,
            next: (index) => outletRequest(`${run}-${replica}-${index}`, `bench-user-${index % 200}`),
          }),
        ),
      );
      return combine(perServer);
    };
    for (const entry of running) await load(entry.servers, `warm-${Math.random().toString(36).slice(2, 8)}`, 1000);
    for (let round = 0; round < rounds; round++)
      for (const entry of running)
        entry.results.push(
          await load(entry.servers, `r${round}-${Math.random().toString(36).slice(2, 8)}`, options.phaseMs),
        );
    const single = median(running[0]!.results.map((result) => result.perSecond));
    const rows = running.map((entry) => {
      const perSecond = median(entry.results.map((result) => result.perSecond));
      return [
        entry.name,
        perSecond.toFixed(0),
        median(entry.results.map((result) => result.p50Ms)).toFixed(2),
        median(entry.results.map((result) => result.p99Ms)).toFixed(2),
        (perSecond / single).toFixed(2),
        String(entry.results.reduce((sum, result) => sum + result.errors, 0)),
      ];
    });
    return markdownTable(['Redis', 'outlets/s', 'p50 ms', 'p99 ms', 'vs single node', 'errors'], rows);
  } finally {
    for (const entry of running) {
      await Promise.all(entry.servers.map((server) => server.stop()));
      await entry.topology.stop();
    }
  }
}

/** Two replicas' simultaneous loads as one: their requests over the phase; the worse p50/p99. */
function combine(results: LoadResult[]): LoadResult {
  return {
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    perSecond: results.reduce((sum, result) => sum + result.perSecond, 0),
    p50Ms: Math.max(...results.map((result) => result.p50Ms)),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    maxMs: Math.max(...results.map((result) => result.maxMs)),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
