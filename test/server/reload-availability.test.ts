import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { sdkImport } from './helpers/filter-source.js';

/**
 * A filter whose import is slow (top-level await) once `marker` exists: a reload then takes
 * a while, and requests arriving meanwhile must still be answered by a filter (the old or the
 * new instance). A 404 here aborts the user's chat on current Open WebUI.
 */
const slowToImport = (marker: string) => `import { existsSync } from 'node:fs';
${sdkImport}
if (existsSync(${JSON.stringify(marker)})) await new Promise((resolve) => setTimeout(resolve, 1500));
export default defineFilter({ name: 'Slow import', inlet: ({ body }) => ({ ...body, filtered: true }) });
`;

describe('requests during a reload', () => {
  let runtime: TestRuntime;
  let marker: string;
  beforeAll(async () => {
    runtime = await createTestRuntime();
    marker = path.join(runtime.root, 'slow.marker');
    writeFileSync(path.join(runtime.filtersDir, 'slow.ts'), slowToImport(marker));
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
    writeFileSync(marker, '');
    const reload = request(runtime.app)
      .post('/pipelines/reload')
      .set(runtime.auth)
      .then((response) => response);
    // Give the reload time to start (it shuts the old instance down first), far less than the 1.5 s import.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = await inlet();
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
  let marker: string;
  beforeAll(async () => {
    const first = await createTestRuntime();
    marker = path.join(first.root, 'slow.marker');
    writeFileSync(path.join(first.filtersDir, 'slow.ts'), slowToImport(marker));
    runtime = await first.restart();
    runtime.registry.watch();
  });
  afterAll(async () => runtime.dispose());

  it('while the edited file is re-imported, its filter keeps answering', async () => {
    const inlet = () =>
      request(runtime.app)
        .post('/slow/filter/inlet')
        .set(runtime.auth)
        .send({ body: { model: 'gpt-4o' } });
    expect((await inlet()).body).toEqual({ model: 'gpt-4o', filtered: true });
    writeFileSync(marker, '');
    writeFileSync(path.join(runtime.filtersDir, 'slow.ts'), `${slowToImport(marker)}// edited\n`);
    // Past the 50 ms debounce, well inside the 1.5 s import.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const during = await inlet();
    expect({ status: during.status, body: during.body }).toEqual({
      status: 200,
      body: { model: 'gpt-4o', filtered: true },
    });
  });
});

/** onStartup / onShutdown that are slow (1.5 s) while their marker file exists; the inlet reports whether onStartup finished. */
const slowLifecycle = (startMarker: string, stopMarker: string) => `import { existsSync } from 'node:fs';
${sdkImport}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let started = false;
export default defineFilter({
  name: 'Slow lifecycle',
  async onStartup() {
    if (existsSync(${JSON.stringify(startMarker)})) await sleep(1500);
    started = true;
  },
  async onShutdown() {
    if (existsSync(${JSON.stringify(stopMarker)})) await sleep(1500);
  },
  inlet: ({ body }) => ({ ...body, started }),
});
`;

describe('requests during a reload with slow lifecycle hooks', () => {
  let runtime: TestRuntime;
  let startMarker: string;
  let stopMarker: string;
  beforeAll(async () => {
    const first = await createTestRuntime();
    startMarker = path.join(first.root, 'start.marker');
    stopMarker = path.join(first.root, 'stop.marker');
    writeFileSync(path.join(first.filtersDir, 'lazy.ts'), slowLifecycle(startMarker, stopMarker));
    runtime = await first.restart();
  });
  afterAll(async () => {
    rmSync(startMarker, { force: true });
    rmSync(stopMarker, { force: true });
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
  ])(
    'during %s, requests are answered by a started filter (never a 404, never before onStartup finished)',
    async (_label, which) => {
      rmSync(startMarker, { force: true });
      rmSync(stopMarker, { force: true });
      expect((await inlet()).body).toEqual({ model: 'gpt-4o', started: true });
      writeFileSync(which === 'start' ? startMarker : stopMarker, '');
      const reload = request(runtime.app)
        .post('/pipelines/reload')
        .set(runtime.auth)
        .then((response) => response);
      // Well inside the 1.5 s hook.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const during = await inlet();
      // Let the reload finish before asserting, so one failure does not leak into the next case.
      expect((await reload).status).toBe(200);
      expect({ status: during.status, body: during.body }).toEqual({
        status: 200,
        body: { model: 'gpt-4o', started: true },
      });
    },
  );
});
