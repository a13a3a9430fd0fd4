import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { postInlet } from './helpers/http.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, SDK_SPECIFIER } from '../helpers/create-test-runtime.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'isolation-limits-key';
const LIMIT_MB = 128;
const STEP_MB = 16;
/** 2 GiB if nothing stops it: far past the bound below. */
const STEPS = 128;
const header = `import { defineFilter } from '${SDK_SPECIFIER}';\n`;

/** Holds a filled 16 MB Buffer more at each step (in a module array), yielding to timers between steps. */
const offHeap = `${header}const hoard = [];
export default defineFilter({
  async inlet({ body }) {
    for (let step = 0; step < (body.steps ?? 0); step++) {
      hoard.push(Buffer.alloc(${STEP_MB} * 1024 * 1024, step % 256));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { ...body, held: hoard.length };
  },
});
`;

/** The same without yielding: its event loop is blocked, so the host watches the process from outside. */
const syncHeap = `${header}const hoard = [];
export default defineFilter({
  inlet({ body }) {
    for (let step = 0; step < (body.steps ?? 0); step++) hoard.push(Buffer.alloc(${STEP_MB} * 1024 * 1024, step % 256));
    return { ...body, held: hoard.length };
  },
});
`;

/** Fills and drops a 48 MB Buffer at each step: garbage past the limit, never more than one held. */
const churn = `${header}export default defineFilter({
  async inlet({ body }) {
    let sum = 0;
    for (let step = 0; step < (body.steps ?? 0); step++) {
      sum += Buffer.alloc(48 * 1024 * 1024, step % 256)[step];
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { ...body, sum };
  },
});
`;

/** Holds 160 MB of Buffers from its import on. */
const importHeap = `${header}const hoard = Array.from({ length: 10 }, (_, step) => Buffer.alloc(${STEP_MB} * 1024 * 1024, step));
export default defineFilter({ inlet: ({ body }) => ({ ...body, held: hoard.length }) });
`;

/** Throws from a helper function two frames below its inlet. */
const thrower = `${header}function explode(reason) {
  throw new Error(\`refused: \${reason}\`); // THROW
}
export default defineFilter({
  inlet({ body, logger }) {
    if (body.boom) explode('boom'); // CALL
    if (body.note) logger.error(new Error('noted'), 'caught in the filter'); // LOGGED
    return body;
  },
});
`;
/** The 1-based line of `marker` in `source`. */
const lineOf = (source: string, marker: string) => source.split('\n').findIndex((line) => line.includes(marker)) + 1;

const auth = { Authorization: `Bearer ${KEY}` };

const inlet = (server: ServerProcess, id: string, body: Record<string, unknown>) => postInlet(server, KEY, id, body);

/** Peak resident memory of a process (Linux `VmHWM`), in bytes: the threads of its workers included. */
function peakRss(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** The server's JSON log lines that contain `text`. */
function logLines(server: ServerProcess, text: string): Array<Record<string, unknown>> {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(text))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('isolated filters in a real server process: memory outside the V8 heap, stack frames', () => {
  let root: string;
  let filtersDir: string;
  let server: ServerProcess;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-isolation-limits-'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    filtersDir = path.join(root, 'filters');
    mkdirSync(filtersDir);
    writeFileSync(path.join(filtersDir, 'off-heap.ts'), offHeap);
    writeFileSync(path.join(filtersDir, 'churn.ts'), churn);
    writeFileSync(path.join(filtersDir, 'import-heap.ts'), importHeap);
    writeFileSync(path.join(filtersDir, 'sync-heap.ts'), syncHeap);
    writeFileSync(path.join(filtersDir, 'thrower.ts'), thrower);
    writeFileSync(path.join(filtersDir, 'thrower-main.ts'), thrower);
    server = await startServerProcess({
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: filtersDir,
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
      FILTER_WORKER_MAX_MB: String(LIMIT_MB),
      // The same file in the main thread: its frames are kept in the log too.
      FILTER_ISOLATION_OVERRIDES: 'thrower-main=main',
      HOOK_TIMEOUT_MS: '30000',
      WATCH_FILTERS: 'false',
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('Buffers held past the worker limit end the worker with the out-of-memory error; the process stays bounded; the filter comes back', async () => {
    const response = await inlet(server, 'off-heap', { steps: STEPS });
    // 2 GiB of filled Buffers were asked for; the worker was stopped near its limit.
    const peak = peakRss(server.pid);
    expect(peak, `peak RSS of the server: ${Math.round(peak / 1024 ** 2)} MB`).toBeLessThan(1.5 * 1024 ** 3);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { detail: string }).detail).toBe(
      `Filter off-heap ran out of memory (worker limit ${LIMIT_MB} MB); its worker was replaced`,
    );
    // The log line may reach the output a moment after the answer (the logger writes asynchronously).
    const overLimit = await waitFor(() => logLines(server, 'isolated filter worker over its memory limit'), {
      until: (lines) => lines.length > 0,
    });
    expect(overLimit).toEqual([expect.objectContaining({ filter: 'off-heap', limitMb: LIMIT_MB })]);
    // The replacement worker answers, with a fresh module (nothing held).
    const next = await waitFor(() => inlet(server, 'off-heap', { steps: 1 }), {
      until: (answer) => answer.status === 200,
      timeoutMs: 30_000,
    });
    expect(await next.json()).toMatchObject({ held: 1 });
  });

  it('the same in a synchronous loop (the worker cannot sample itself): ended near the limit all the same', async () => {
    const response = await inlet(server, 'sync-heap', { steps: STEPS });
    const peak = peakRss(server.pid);
    expect(peak, `peak RSS of the server: ${Math.round(peak / 1024 ** 2)} MB`).toBeLessThan(1.5 * 1024 ** 3);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { detail: string }).detail).toBe(
      `Filter sync-heap ran out of memory (worker limit ${LIMIT_MB} MB); its worker was replaced`,
    );
    const next = await waitFor(() => inlet(server, 'sync-heap', { steps: 1 }), {
      until: (answer) => answer.status === 200,
      timeoutMs: 30_000,
    });
    expect(await next.json()).toMatchObject({ held: 1 });
  });

  it('a file whose import holds more than the limit is listed as failed with the out-of-memory error', async () => {
    const listed = (await (await fetch(`${server.url}/pipelines`, { headers: auth })).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(listed.data.find((entry) => entry.id === 'import-heap')).toMatchObject({
      status: 'failed',
      error: expect.stringContaining(`import ran out of memory (worker limit ${LIMIT_MB} MB)`),
    });
  });

  it('Buffers dropped as they go are garbage, not held memory: a filter churning 1.5 GB through 48 MB Buffers answers', async () => {
    const response = await inlet(server, 'churn', { steps: 32 });
    expect(response.status).toBe(200);
    expect(logLines(server, 'over its memory limit').filter((line) => line.filter === 'churn')).toEqual([]);
  });

  it.each([
    ['thrower', 'worker'],
    ['thrower-main', 'main'],
  ])(
    'a throw in %s (%s thread) is logged with the filter file and line; the answer carries only the message',
    async (id) => {
      const response = await inlet(server, id, { boom: true });
      expect(response.status).toBe(500);
      const answer = await response.text();
      expect(JSON.parse(answer)).toMatchObject({ detail: `Filter ${id} inlet failed: refused: boom` });
      expect(answer).not.toContain('explode'); // no stack
      expect(answer).not.toContain(root);
      expect(answer).not.toContain(repoRoot);
      const logged = await waitFor(() => logLines(server, 'refused: boom').map((line) => JSON.stringify(line)), {
        until: (lines) => lines.some((line) => line.includes(`${id}.ts:`)),
      });
      const line = logged.find((text) => text.includes(`${id}.ts:`))!;
      const file = path.join(filtersDir, `${id}.ts`);
      expect(line).toContain(`${file}:${lineOf(thrower, '// THROW')}:`);
      expect(line).toContain(`${file}:${lineOf(thrower, '// CALL')}:`);
    },
  );

  it.each([
    ['thrower', 'worker'],
    ['thrower-main', 'main'],
  ])('an Error that %s (%s thread) logs through its logger keeps its stack', async (id) => {
    expect((await inlet(server, id, { note: true })).status).toBe(200);
    const logged = await waitFor(
      () => logLines(server, 'caught in the filter').filter((line) => JSON.stringify(line).includes(`${id}.ts:`)),
      { until: (lines) => lines.length > 0 },
    );
    expect(logged[0]).toMatchObject({
      err: { message: 'noted', stack: expect.stringContaining(`${path.join(filtersDir, `${id}.ts`)}:`) },
    });
    expect((logged[0]!.err as { stack: string }).stack).toContain(`${id}.ts:${lineOf(thrower, '// LOGGED')}:`);
  });
});
