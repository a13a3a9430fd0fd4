import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { postInlet } from './helpers/http.js';
import { filterSource, markerFilter } from './helpers/filter-source.js';

const KEY = 'last-good-key';
const auth = { Authorization: `Bearer ${KEY}` };

type Listed = { id: string; name: string; status: string; load_error?: { error: string; line: number | null } };

/**
 * A saved edit that does not load never takes a working filter away: a real server process (filters in worker
 * threads, the file watcher on) keeps serving the last version that loaded, lists the failure on /pipelines as
 * `load_error` and logs it, and switches to the file as soon as it loads again.
 */
describe('a broken edit keeps the last good version serving', () => {
  let root: string;
  let file: string;
  let server: ServerProcess;

  const pipelines = async () =>
    ((await (await fetch(`${server.url}/pipelines`, { headers: auth })).json()) as { data: Listed[] }).data;
  const models = async () =>
    ((await (await fetch(`${server.url}/models`, { headers: auth })).json()) as { data: Listed[] }).data;
  const marker = async () => {
    const response = await postInlet(server, KEY, 'first', {});
    return { status: response.status, marker: ((await response.json()) as { marker?: string }).marker };
  };
  const broken = filterSource('export default defineFilter({ name: "oops", inlet( });');

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-last-good-'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    mkdirSync(path.join(root, 'filters'));
    file = path.join(root, 'filters', 'first.ts');
    writeFileSync(file, markerFilter({ name: 'First v1', marker: 'v1' }));
    server = await startServerProcess({
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: path.join(root, 'filters'),
      DATA_DIR: path.join(root, 'data'),
      FILTER_ISOLATION: 'worker',
      WATCH_FILTERS: 'true',
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a syntax error saved into the file: v1 keeps answering, /models keeps it, /pipelines and the log say why', async () => {
    expect(await marker()).toEqual({ status: 200, marker: 'v1' });
    writeFileSync(file, broken);
    const listed = await waitFor(pipelines, { until: (list) => list.some((entry) => entry.load_error) });
    expect(listed).toEqual([
      expect.objectContaining({
        id: 'first',
        name: 'First v1',
        status: 'loaded',
        load_error: { error: expect.stringMatching(/\S/), line: expect.any(Number) },
      }),
    ]);
    expect(await marker()).toEqual({ status: 200, marker: 'v1' });
    expect((await models()).map((model) => model.id)).toContain('first');
    expect(server.output()).toMatch(
      /filter first: the changed file does not load; its last good version keeps serving/,
    );
  });

  it('POST /pipelines/reload while the file is broken keeps the last good version too', async () => {
    const reload = await fetch(`${server.url}/pipelines/reload`, { method: 'POST', headers: auth });
    expect(reload.status).toBe(200);
    expect(((await reload.json()) as { failed: number }).failed).toBe(0);
    expect(await marker()).toEqual({ status: 200, marker: 'v1' });
    expect((await pipelines()).find((entry) => entry.id === 'first')?.load_error).toBeDefined();
  });

  it('the file loads again: the new version serves and the load error is gone', async () => {
    writeFileSync(file, markerFilter({ name: 'First v2', marker: 'v2' }));
    const listed = await waitFor(pipelines, {
      until: (list) => list.some((entry) => entry.id === 'first' && entry.name === 'First v2'),
    });
    expect(listed.find((entry) => entry.id === 'first')).not.toHaveProperty('load_error');
    expect(await marker()).toEqual({ status: 200, marker: 'v2' });
  });

  it('an upload of a broken version over it is refused and changes nothing', async () => {
    const form = new FormData();
    form.append('file', new Blob([broken]), 'first.ts');
    const upload = await fetch(`${server.url}/pipelines/upload`, { method: 'POST', headers: auth, body: form });
    expect(upload.status).toBe(400);
    expect(((await upload.json()) as { detail: string }).detail).toMatch(/was rejected.*Nothing was changed/);
    expect(await marker()).toEqual({ status: 200, marker: 'v2' });
    expect((await pipelines()).find((entry) => entry.id === 'first')).not.toHaveProperty('load_error');
  });
});
