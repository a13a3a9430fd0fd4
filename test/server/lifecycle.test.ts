import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { lifecycleFilter, noopFilter } from './helpers/filter-source.js';
import { multipartFile } from './helpers/multipart.js';

type Event = { tag: string; event: string; level?: number };

/** A runtime whose filters log lifecycle events to `<root>/lifecycle.log` (the log path lives in the root). */
async function lifecycleRuntime(
  filters: Record<string, { tag: string; priority?: number; startupThrows?: boolean; shutdownThrows?: boolean }>,
  env: Record<string, string> = {},
) {
  const runtime = await createTestRuntime({ env });
  const logFile = path.join(runtime.root, 'lifecycle.log');
  writeFileSync(logFile, '');
  for (const [file, options] of Object.entries(filters))
    writeFileSync(path.join(runtime.filtersDir, file), lifecycleFilter(logFile, options.tag, options));
  const restarted = await runtime.restart();
  const events = (): Event[] =>
    (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  const clear = () => writeFileSync(logFile, '');
  return { runtime: restarted, events, clear, logFile };
}

describe('lifecycle hooks', () => {
  let runtime: TestRuntime | undefined;
  afterEach(async () => {
    await runtime?.dispose();
    runtime = undefined;
  });

  it('onStartup runs for every filter, in priority order, before the first request is served', async () => {
    const setup = await lifecycleRuntime({
      'a.ts': { tag: 'a', priority: 5 },
      'b.ts': { tag: 'b', priority: -5 },
      'c.ts': { tag: 'c', priority: 0 },
    });
    runtime = setup.runtime;
    expect(setup.events()).toEqual([
      { tag: 'b', event: 'startup', level: 1 },
      { tag: 'c', event: 'startup', level: 1 },
      { tag: 'a', event: 'startup', level: 1 },
    ]);
    // The startup hook sleeps before setting its flag: the very first inlet already sees it set.
    const response = await request(runtime.app)
      .post('/a/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } })
      .expect(200);
    expect(response.body.started).toBe(true);
  });

  it('onValvesUpdated fires on update; after a restart onStartup sees the saved valves', async () => {
    const setup = await lifecycleRuntime({ 'a.ts': { tag: 'a' } });
    setup.clear();
    await request(setup.runtime.app).post('/a/valves/update').set(setup.runtime.auth).send({ level: '4' }).expect(200);
    expect(setup.events()).toContainEqual({ tag: 'a', event: 'valves', level: 4 });
    setup.clear();
    runtime = await setup.runtime.restart();
    expect(setup.events().filter((event) => event.event !== 'valves')).toEqual([
      { tag: 'a', event: 'shutdown' },
      { tag: 'a', event: 'startup', level: 4 },
    ]);
  });

  it('delete calls onShutdown of that filter only', async () => {
    const setup = await lifecycleRuntime({ 'a.ts': { tag: 'a' }, 'b.ts': { tag: 'b' } });
    runtime = setup.runtime;
    setup.clear();
    await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({ id: 'a' }).expect(200);
    expect(setup.events()).toEqual([{ tag: 'a', event: 'shutdown' }]);
  });

  it('reload shuts every filter down before starting them again', async () => {
    const setup = await lifecycleRuntime({ 'a.ts': { tag: 'a', priority: 1 }, 'b.ts': { tag: 'b', priority: 2 } });
    runtime = setup.runtime;
    setup.clear();
    await request(runtime.app).post('/pipelines/reload').set(runtime.auth).expect(200);
    const events = setup.events();
    expect(events.map((event) => event.event)).toEqual(['shutdown', 'shutdown', 'startup', 'startup']);
    expect(
      events
        .filter((event) => event.event === 'shutdown')
        .map((event) => event.tag)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(events.filter((event) => event.event === 'startup').map((event) => event.tag)).toEqual(['a', 'b']);
  });

  it('replacing a file by upload shuts the old one down before the new one starts', async () => {
    const setup = await lifecycleRuntime({ 'a.ts': { tag: 'a-old' } });
    runtime = setup.runtime;
    setup.clear();
    const upload = multipartFile('a.ts', lifecycleFilter(setup.logFile, 'a-new'));
    await request(runtime.app)
      .post('/pipelines/upload')
      .set(runtime.auth)
      .set('Content-Type', upload.contentType)
      .send(upload.body)
      .expect(200);
    expect(setup.events()).toEqual([
      { tag: 'a-old', event: 'shutdown' },
      { tag: 'a-new', event: 'startup', level: 1 },
    ]);
  });

  it('closing the runtime shuts every filter down', async () => {
    const setup = await lifecycleRuntime({ 'a.ts': { tag: 'a' }, 'b.ts': { tag: 'b' } });
    setup.clear();
    runtime = await setup.runtime.restart();
    expect(
      setup
        .events()
        .filter((event) => event.event === 'shutdown')
        .map((event) => event.tag)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('a failing onStartup marks only that filter failed; a failing onShutdown does not stop a delete', async () => {
    const setup = await lifecycleRuntime({
      'bad.ts': { tag: 'bad', startupThrows: true },
      'grumpy.ts': { tag: 'grumpy', shutdownThrows: true },
      'ok.ts': { tag: 'ok' },
    });
    runtime = setup.runtime;
    const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    const bad = list.body.data.find((entry: { id: string }) => entry.id === 'bad');
    expect(bad).toMatchObject({ status: 'failed' });
    expect(bad.error).toMatch(/startup exploded/);
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(models.body.data.map((model: { id: string }) => model.id).sort()).toEqual(['grumpy', 'ok']);
    await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({ id: 'grumpy' }).expect(200);
    expect(existsSync(path.join(runtime.filtersDir, 'grumpy.ts'))).toBe(false);
    const after = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(after.body.data.map((model: { id: string }) => model.id)).toEqual(['ok']);
  });
});

/**
 * The tests above run the filters in the test's thread. Here the same hooks cross into worker threads
 * (FILTER_ISOLATION=auto, where files not shipped with Eunoe run): one runtime goes through start-up,
 * a valves update, a replacing upload, a reload, a delete and a restart, each worker started anew.
 */
describe('lifecycle hooks of filters in worker threads (FILTER_ISOLATION=auto)', () => {
  let runtime: TestRuntime | undefined;
  afterEach(async () => {
    await runtime?.dispose();
    runtime = undefined;
  });

  it('start-up order, valves, upload, reload, delete and restart run each hook in the worker as in the main thread', async () => {
    const setup = await lifecycleRuntime(
      {
        'a.ts': { tag: 'a', priority: 5 },
        'b.ts': { tag: 'b', priority: -5, shutdownThrows: true },
        'bad.ts': { tag: 'bad', startupThrows: true },
      },
      { FILTER_ISOLATION: 'auto' },
    );
    runtime = setup.runtime;
    const app = runtime.app;
    const auth = runtime.auth;
    const list = await request(app).get('/pipelines').set(auth).expect(200);
    const placement = Object.fromEntries(
      list.body.data.map((entry: { id: string; status: string; isolation?: string; error?: string }) => [
        entry.id,
        entry.status === 'failed' ? entry.error : entry.isolation,
      ]),
    );
    expect(placement).toEqual({ a: 'worker', b: 'worker', bad: expect.stringMatching(/startup exploded/) });
    expect(setup.events()).toEqual([
      { tag: 'b', event: 'startup', level: 1 },
      { tag: 'a', event: 'startup', level: 1 },
    ]);
    expect((await request(app).post('/a/filter/inlet').set(auth).send({ body: {} }).expect(200)).body.started).toBe(
      true,
    );

    setup.clear();
    await request(app).post('/a/valves/update').set(auth).send({ level: '4' }).expect(200);
    expect(setup.events()).toEqual([{ tag: 'a', event: 'valves', level: 4 }]);

    setup.clear();
    const upload = multipartFile('a.ts', lifecycleFilter(setup.logFile, 'a-new', { priority: 5 }));
    await request(app)
      .post('/pipelines/upload')
      .set(auth)
      .set('Content-Type', upload.contentType)
      .send(upload.body)
      .expect(200);
    expect(setup.events()).toEqual([
      { tag: 'a', event: 'shutdown' },
      { tag: 'a-new', event: 'startup', level: 4 },
    ]);

    setup.clear();
    await request(app).post('/pipelines/reload').set(auth).expect(200);
    const reloaded = setup.events();
    expect(
      reloaded
        .slice(0, 2)
        .map((event) => `${event.tag} ${event.event}`)
        .sort(),
    ).toEqual(['a-new shutdown', 'b shutdown']);
    expect(reloaded.slice(2)).toEqual([
      { tag: 'b', event: 'startup', level: 1 },
      { tag: 'a-new', event: 'startup', level: 4 },
    ]);

    setup.clear();
    await request(app).delete('/pipelines/delete').set(auth).send({ id: 'b' }).expect(200);
    expect(setup.events()).toEqual([{ tag: 'b', event: 'shutdown' }]);
    expect(existsSync(path.join(runtime.filtersDir, 'b.ts'))).toBe(false);

    setup.clear();
    runtime = await runtime.restart();
    expect(setup.events()).toEqual([
      { tag: 'a-new', event: 'shutdown' },
      { tag: 'a-new', event: 'startup', level: 4 },
    ]);
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(models.body.data.map((model: { id: string }) => model.id)).toEqual(['a']);
  });
});

describe('lifecycle with watching on (the production default)', () => {
  let runtime: TestRuntime | undefined;
  afterEach(async () => {
    await runtime?.dispose();
    runtime = undefined;
  });

  it('an uploaded filter is started exactly once (the watcher does not restart it again)', async () => {
    runtime = await createTestRuntime({ watch: true });
    const logFile = path.join(runtime.root, 'lifecycle.log');
    writeFileSync(logFile, '');
    const form = multipartFile('life.ts', lifecycleFilter(logFile, 'life'));
    await request(runtime.app)
      .post('/pipelines/upload')
      .set(runtime.auth)
      .set('Content-Type', form.contentType)
      .send(form.body)
      .expect(200);
    // A file written after the upload and loaded by the watcher proves the watcher handled the
    // upload's own events first (events arrive in order, equal debounces fire in order, loads are serial).
    writeFileSync(path.join(runtime.filtersDir, 'probe.ts'), noopFilter());
    const app = runtime.app;
    await waitFor(() => request(app).get('/pipelines').set(runtime!.auth), {
      until: (response) => response.body.data.some((entry: { id: string }) => entry.id === 'probe'),
    });
    const events = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Event);
    expect(events).toEqual([{ tag: 'life', event: 'startup', level: 1 }]);
  });
});
