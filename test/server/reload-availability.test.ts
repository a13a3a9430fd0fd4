import { existsSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { sdkImport } from './helpers/filter-source.js';

/**
 * A gate a generated filter stops at: while `armed` exists, the filter writes `entered` and waits
 * until `released` exists. The test sends its request while the filter is known to be inside the
 * slow part (no race window, no guessed duration) and then lets it go on.
 */
interface Gate {
  armed: string;
  entered: string;
  released: string;
}

function gate(dir: string, name: string): Gate {
  return {
    armed: path.join(dir, `${name}.armed`),
    entered: path.join(dir, `${name}.entered`),
    released: path.join(dir, `${name}.released`),
  };
}

/** Source of an async function `name` in a generated filter that stops at `gate` while it is armed. */
const gateFunction = (name: string, at: Gate) => `async function ${name}() {
  if (!existsSync(${JSON.stringify(at.armed)})) return;
  writeFileSync(${JSON.stringify(at.entered)}, '');
  while (!existsSync(${JSON.stringify(at.released)})) await new Promise((resolve) => setTimeout(resolve, 10));
}`;

function arm(at: Gate): void {
  for (const file of [at.entered, at.released]) rmSync(file, { force: true });
  writeFileSync(at.armed, '');
}

/** Wait until the filter is at the gate. */
function entered(at: Gate): Promise<boolean> {
  return waitFor(() => existsSync(at.entered));
}

/** Let the filter go on, and disarm the gate for the next time. */
function release(at: Gate): void {
  rmSync(at.armed, { force: true });
  writeFileSync(at.released, '');
}

/**
 * Send an inlet to `runtime` while the filter is held at `at`, and release the gate once the
 * request is in the server (a request arriving during a reload waits for it: the reload must be
 * able to finish while the request is pending).
 */
async function inletDuring(runtime: TestRuntime, id: string, at: Gate) {
  let arrived = false;
  const app: typeof runtime.app = Object.assign((req: IncomingMessage, res: ServerResponse) => {
    arrived = true;
    return runtime.app(req, res);
  }, runtime.app);
  const pending = request(app)
    .post(`/${id}/filter/inlet`)
    .set(runtime.auth)
    .send({ body: { model: 'gpt-4o' } })
    .then((response) => response);
  await waitFor(() => arrived, { intervalMs: 1 });
  // A few turns of the event loop: the body (already received) is parsed and the hook waits for the reload.
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  release(at);
  return pending;
}

/**
 * A filter whose import stops at the gate (top-level await) while it is armed: a reload then
 * takes a while, and requests arriving meanwhile must still be answered by a filter (the old or
 * the new instance). A 404 here aborts the user's chat on current Open WebUI.
 */
const slowToImport = (at: Gate) => `import { existsSync, writeFileSync } from 'node:fs';
${sdkImport}
${gateFunction('importGate', at)}
await importGate();
export default defineFilter({ name: 'Slow import', inlet: ({ body }) => ({ ...body, filtered: true }) });
`;

describe('requests during a reload', () => {
  let runtime: TestRuntime;
  let importGate: Gate;
  beforeAll(async () => {
    runtime = await createTestRuntime();
    importGate = gate(runtime.root, 'import');
    writeFileSync(path.join(runtime.filtersDir, 'slow.ts'), slowToImport(importGate));
    await runtime.registry.loadAll();
  });
  afterAll(async () => runtime.dispose());

  const inlet = () =>
    request(runtime.app)
      .post('/slow/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o' } });

  it('an inlet call while POST /pipelines/reload re-imports the filter is still filtered, not a 404', async () => {
    expect((await inlet()).body).toEqual({ model: 'gpt-4o', filtered: true });
    arm(importGate);
    const reload = request(runtime.app)
      .post('/pipelines/reload')
      .set(runtime.auth)
      .then((response) => response);
    await entered(importGate);
    const during = await inletDuring(runtime, 'slow', importGate);
    expect({ status: during.status, body: during.body }).toEqual({
      status: 200,
      body: { model: 'gpt-4o', filtered: true },
    });
    expect((await reload).status).toBe(200);
    expect((await inlet()).body).toEqual({ model: 'gpt-4o', filtered: true });
  });
});

describe('requests during a hot reload of one file', () => {
  let runtime: TestRuntime;
  let importGate: Gate;
  beforeAll(async () => {
    const first = await createTestRuntime();
    importGate = gate(first.root, 'import');
    writeFileSync(path.join(first.filtersDir, 'slow.ts'), slowToImport(importGate));
    runtime = await first.restart();
    runtime.registry.watch();
  });
  afterAll(async () => {
    release(importGate);
    await runtime.dispose();
  });

  it('while the edited file is re-imported, its filter keeps answering', async () => {
    const inlet = () =>
      request(runtime.app)
        .post('/slow/filter/inlet')
        .set(runtime.auth)
        .send({ body: { model: 'gpt-4o' } });
    expect((await inlet()).body).toEqual({ model: 'gpt-4o', filtered: true });
    arm(importGate);
    writeFileSync(path.join(runtime.filtersDir, 'slow.ts'), `${slowToImport(importGate)}// edited\n`);
    // The watcher saw the edit and the new instance is being imported.
    await entered(importGate);
    const during = await inletDuring(runtime, 'slow', importGate);
    expect({ status: during.status, body: during.body }).toEqual({
      status: 200,
      body: { model: 'gpt-4o', filtered: true },
    });
  });
});

/** onStartup / onShutdown that stop at their gates while armed; the inlet reports whether onStartup finished. */
const slowLifecycle = (start: Gate, stop: Gate) => `import { existsSync, writeFileSync } from 'node:fs';
${sdkImport}
${gateFunction('startGate', start)}
${gateFunction('stopGate', stop)}
let started = false;
export default defineFilter({
  name: 'Slow lifecycle',
  async onStartup() {
    await startGate();
    started = true;
  },
  async onShutdown() {
    await stopGate();
  },
  inlet: ({ body }) => ({ ...body, started }),
});
`;

describe('requests during a reload with slow lifecycle hooks', () => {
  let runtime: TestRuntime;
  let gates: { start: Gate; stop: Gate };
  beforeAll(async () => {
    const first = await createTestRuntime();
    gates = { start: gate(first.root, 'start'), stop: gate(first.root, 'stop') };
    writeFileSync(path.join(first.filtersDir, 'lazy.ts'), slowLifecycle(gates.start, gates.stop));
    runtime = await first.restart();
  });
  afterAll(async () => {
    release(gates.start);
    release(gates.stop);
    await runtime.dispose();
  });

  const inlet = () =>
    request(runtime.app)
      .post('/lazy/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o' } });

  it.each([
    ['a slow onShutdown of the old instance', 'stop'],
    ['a slow onStartup of the new instance', 'start'],
  ] as const)(
    'during %s, requests are answered by a started filter (never a 404, never before onStartup finished)',
    async (_label, which) => {
      expect((await inlet()).body).toEqual({ model: 'gpt-4o', started: true });
      const slow = gates[which];
      arm(slow);
      const reload = request(runtime.app)
        .post('/pipelines/reload')
        .set(runtime.auth)
        .then((response) => response);
      await entered(slow);
      const during = await inletDuring(runtime, 'lazy', slow);
      // Let the reload finish before asserting, so one failure does not leak into the next case.
      expect((await reload).status).toBe(200);
      expect({ status: during.status, body: during.body }).toEqual({
        status: 200,
        body: { model: 'gpt-4o', started: true },
      });
    },
  );
});
