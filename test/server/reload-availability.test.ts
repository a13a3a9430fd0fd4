import { writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { sdkImport } from './helpers/filter-source.js';

/**
 * A filter whose import is slow (top-level await) once `marker` exists: a reload then takes
 * a while, and requests arriving meanwhile must still be answered by a filter (the old or the
 * new instance). A 404 here aborts the user's chat on current Open WebUI (protocol §4.5).
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

  const inlet = () => request(runtime.app).post('/slow/filter/inlet').set(runtime.auth).send({ body: { model: 'gpt-4o' } });

  it('an inlet call while POST /pipelines/reload re-imports the filter is still filtered, not a 404', async () => {
    expect((await inlet()).body).toEqual({ model: 'gpt-4o', filtered: true });
    writeFileSync(marker, '');
    const reload = request(runtime.app).post('/pipelines/reload').set(runtime.auth).then((response) => response);
    // Give the reload time to start (it shuts the old instance down first), far less than the 1.5 s import.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = await inlet();
    expect({ status: during.status, body: during.body }).toEqual({ status: 200, body: { model: 'gpt-4o', filtered: true } });
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
    const inlet = () => request(runtime.app).post('/slow/filter/inlet').set(runtime.auth).send({ body: { model: 'gpt-4o' } });
    expect((await inlet()).body).toEqual({ model: 'gpt-4o', filtered: true });
    writeFileSync(marker, '');
    writeFileSync(path.join(runtime.filtersDir, 'slow.ts'), `${slowToImport(marker)}// edited\n`);
    // Past the 50 ms debounce, well inside the 1.5 s import.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const during = await inlet();
    expect({ status: during.status, body: during.body }).toEqual({ status: 200, body: { model: 'gpt-4o', filtered: true } });
  });
});
