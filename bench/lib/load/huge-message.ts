import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { markdownTable } from '../table.js';
import { startBenchServer } from './bench-server.js';
import { pseudoText } from '../pseudo-text.js';
import { startProbe, type LoadResult } from './run-load.js';

/** Runs `send` while the probe polls `GET /` in its own process; the probe's figures. */
async function probeDuring(url: string, send: () => Promise<void>): Promise<LoadResult> {
  const probe = await startProbe(url);
  try {
    await send();
  } finally {
    probe.stop();
  }
  return probe.result;
}

/**
 * bench:load scenario: one client sends a message of `megabytes` MB as the current question, `rounds` times, through
 * the context filter and through a filter that only passes it on (system-prefix without a prefix: the host's own
 * parsing and answering), while another process polls `GET /`; prints its p50/max per filter. A server of its own
 * (the shipped filters of `codeRoot`, in the main thread), stopped at the end.
 */
export async function hugeMessageScenario(options: {
  codeRoot: string;
  root: string;
  apiKey: string;
  megabytes?: number;
  rounds?: number;
}): Promise<void> {
  const megabytes = options.megabytes ?? 20;
  const rounds = options.rounds ?? 3;
  const dir = path.join(options.root, 'huge-message');
  mkdirSync(dir, { recursive: true });
  const server = await startBenchServer(options.codeRoot, {
    PIPELINES_API_KEY: options.apiKey,
    SHIPPED_FILTERS: 'context,system-prefix',
    FILTER_ISOLATION: 'off',
    DATA_DIR: path.join(dir, 'data'),
    FILTERS_DIR: path.join(dir, 'filters'),
    VALVES_DIR: path.join(dir, 'valves'),
  });
  try {
    const history = [
      { role: 'user', content: 'Here are my notes.' },
      { role: 'assistant', content: 'Go ahead.' },
    ];
    const bodyOf = (question: string) =>
      JSON.stringify({
        user: { id: 'bench-huge', role: 'user' },
        body: {
          model: 'gpt-4o',
          messages: [...history, { role: 'user', content: question }],
          metadata: { chat_id: 'h' },
        },
      });
    const inlet = async (filter: string, body: string) => {
      const response = await fetch(`${server.url}/${filter}/filter/inlet`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${options.apiKey}`, 'Content-Type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${filter} inlet answered ${response.status}`);
    };
    // Warm-up: each filter once with a small body (the context filter loads its token ranks on first use).
    for (const filter of ['context', 'system-prefix']) await inlet(filter, bodyOf('hi'));
    const body = bodyOf(pseudoText(megabytes * 1e6));
    const rows: string[][] = [];
    for (const [label, filter] of [
      ['pass-through (system-prefix)', 'system-prefix'],
      ['context', 'context'],
    ] as const) {
      const results: LoadResult[] = [];
      const times: number[] = [];
      for (let round = 0; round < rounds; round++) {
        results.push(
          await probeDuring(server.url, async () => {
            const begin = performance.now();
            await inlet(filter, body);
            times.push(performance.now() - begin);
          }),
        );
      }
      rows.push([
        label,
        String(rounds),
        (results.reduce((sum, result) => sum + result.p50Ms, 0) / rounds).toFixed(1),
        Math.max(...results.map((result) => result.maxMs)).toFixed(0),
        (times.reduce((sum, time) => sum + time, 0) / rounds).toFixed(0),
        String(results.reduce((sum, result) => sum + result.errors, 0)),
      ]);
    }
    console.log(
      `\n### GET / (1 client) while one ${megabytes} MB question runs through an inlet (one at a time, ${rounds} rounds)\n`,
    );
    console.log(
      markdownTable(['filter', 'rounds', 'GET / p50 ms (mean)', 'GET / max ms', 'inlet ms (mean)', 'errors'], rows),
    );
  } finally {
    await server.stop();
  }
}
