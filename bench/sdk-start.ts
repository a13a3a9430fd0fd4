/**
 * `npm run bench:sdk`: what a filter worker's start costs for a 10-line user filter that imports `defineFilter` from
 * 'eunoe' (a `.ts` file in a folder outside the repository). Each run is a fresh `node` process on the compiled tree
 * (dist/, what `npm start` runs) that first imports the loader a filter worker runs (dist/runtime/host/
 * load-filter-file.js), then times `loadFilterFile(file)`: the SDK resolution hooks, tsx, the `eunoe` entry and
 * the filter itself. Reported per run: the CPU time (user + system) and wall time of that load, and, in separate runs
 * with a `load` hook that records every module, how many project modules (files under dist/) the load added. The
 * same for `import('dist/sdk.js')` alone (the SDK entry, without the hooks, tsx and the filter's compile).
 * Medians of BENCH_RUNS (default 15) runs each.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from '../scripts/build.mjs';
import { quantile } from './lib/metrics.js';
import { markdownTable } from './lib/table.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const COUNTING_RUNS = 3;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

const userFilter = `import { defineFilter } from 'eunoe';

/** Upper-cases the last reply. */
export default defineFilter({
  name: 'Shout',
  outlet({ body }) {
    const last = body.messages?.at(-1);
    if (last && typeof last.content === 'string') last.content = last.content.toUpperCase();
    return body;
  },
});
`;

// Records every module URL the process loads (plain JS: registered before anything else).
const countingHooks = `let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, nextLoad) {
  port.postMessage(url.split('?')[0]);
  return nextLoad(url, context);
}
`;

const driver = `import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const [, , loaderUrl, filterFile, hooksUrl, distUrl, sdkUrl] = process.argv;
const loaded = new Set();
if (hooksUrl !== '-') {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url) => loaded.add(url));
  port1.unref();
  register(hooksUrl, { data: { port: port2 }, transferList: [port2] });
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
const projectModules = () => [...loaded].filter((url) => url.startsWith(distUrl)).length;
const { loadFilterFile } = await import(loaderUrl);
await settle();
const before = projectModules();
const cpu = process.cpuUsage();
const started = performance.now();
if (sdkUrl) {
  await import(sdkUrl);
} else {
  const filter = await loadFilterFile(filterFile);
  if (filter.name !== 'Shout') throw new Error('the filter did not load');
}
const wallMs = performance.now() - started;
const used = process.cpuUsage(cpu);
await settle();
console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, wallMs, modules: projectModules() - before }));
`;

interface Sample {
  cpuMs: number;
  wallMs: number;
  modules: number;
}

await build({ quiet: true });
const work = mkdtempSync(path.join(os.tmpdir(), 'eunoe-sdk-start-'));
try {
  const filterFile = path.join(work, 'shout.ts');
  writeFileSync(filterFile, userFilter);
  writeFileSync(path.join(work, 'hooks.mjs'), countingHooks);
  writeFileSync(path.join(work, 'driver.mjs'), driver);
  const loaderUrl = pathToFileURL(path.join(dist, 'runtime/host/load-filter-file.js')).href;
  const hooksUrl = pathToFileURL(path.join(work, 'hooks.mjs')).href;
  const distUrl = `${pathToFileURL(dist).href}/`;

  const sdkUrl = pathToFileURL(path.join(dist, 'sdk.js')).href;
  const run = (count: boolean, sdkOnly = false): Sample => {
    const args = [path.join(work, 'driver.mjs'), loaderUrl, filterFile, count ? hooksUrl : '-', distUrl];
    const child = spawnSync(process.execPath, sdkOnly ? [...args, sdkUrl] : args, { cwd: work, encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`run failed (${child.status}): ${child.stderr}`);
    return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Sample;
  };

  run(false); // warms the file cache and tsx's compile cache
  const filterTimed = Array.from({ length: RUNS }, () => run(false));
  const filterCounted = Array.from({ length: COUNTING_RUNS }, () => run(true));
  const sdkTimed = Array.from({ length: RUNS }, () => run(false, true));
  const sdkCounted = Array.from({ length: COUNTING_RUNS }, () => run(true, true));
  const median = (values: number[]) => quantile(values, 0.5);
  const rows = (label: string, timed: Sample[], counted: Sample[]) => [
    [`${label}: CPU time (ms)`, ...stats(timed.map((sample) => sample.cpuMs))],
    [`${label}: wall time (ms)`, ...stats(timed.map((sample) => sample.wallMs))],
    [
      `${label}: project modules loaded`,
      ...stats(
        counted.map((sample) => sample.modules),
        0,
      ),
    ],
  ];
  console.log(
    markdownTable(
      ['measure', 'median', 'min', 'max'],
      [
        ...rows('loadFilterFile(shout.ts)', filterTimed, filterCounted),
        ...rows("import 'eunoe' alone", sdkTimed, sdkCounted),
      ],
    ),
  );
  const load = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  console.log(`\n${RUNS} timed and ${COUNTING_RUNS} counting runs each; node ${process.version}, load average ${load}`);

  function stats(values: number[], digits = 1): string[] {
    return [median(values), Math.min(...values), Math.max(...values)].map((value) => value.toFixed(digits));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
