import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource, noopFilter } from './helpers/filter-source.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';
import { startLoopback, type LoopbackServer } from './helpers/loopback.js';
import { multipartFile } from './helpers/multipart.js';

const broken = filterSource(`export default defineFilter({ name: 'Broken', inlet( });`);

describe('management: upload, add, delete', () => {
  let runtime: TestRuntime;
  let files: LoopbackServer;
  beforeAll(async () => {
    // The files are served on loopback, which POST /pipelines/add refuses unless the admin allows it.
    runtime = await createTestRuntime({ filters: ['turn-limit.ts'], env: { ADD_URL_ALLOW_PRIVATE: 'true' } });
    files = await startLoopback({
      '/good.ts': { kind: 'file', body: noopFilter({ name: 'Good from URL' }) },
      '/broken.ts': { kind: 'file', body: broken },
      '/missing.ts': { kind: 'status', status: 404 },
      '/error.ts': { kind: 'status', status: 500 },
      '/user/repo/raw/main/moved.ts': { kind: 'redirect', location: '/raw/moved.ts' },
      '/raw/moved.ts': { kind: 'file', body: noopFilter({ name: 'Moved' }) },
      '/loop.ts': { kind: 'redirect', location: '/loop.ts' },
      '/to-file.ts': { kind: 'redirect', location: 'file:///etc/passwd' },
    });
  });
  afterAll(async () => {
    await files.close();
    await runtime.dispose();
  });
  const ids = async () =>
    ((await request(runtime.app).get('/models').set(runtime.auth).expect(200)).body.data as Array<{ id: string }>)
      .map((model) => model.id)
      .sort();
  const upload = (name: string, content: string | Buffer, prefix = '') => {
    const form = multipartFile(name, content);
    return request(runtime.app)
      .post(`${prefix}/pipelines/upload`)
      .set(runtime.auth)
      .set('Content-Type', form.contentType)
      .send(form.body);
  };

  it.each(PREFIXES)('upload saves the file byte for byte under its name and loads it (prefix "%s")', async (prefix) => {
    const source = noopFilter({ name: `Uploaded ${prefix}` });
    const name = `up${prefix.replace('/', '_')}.mts`;
    const response = await upload(name, source, prefix).expect(200);
    expect(response.body).toEqual({ status: true, detail: expect.stringContaining(name) });
    expect(readFileSync(path.join(runtime.filtersDir, name), 'utf8')).toBe(source);
    expect(await ids()).toContain(name.replace('.mts', ''));
  });

  it('upload accepts every filter extension (.ts, .mts, .js, .mjs)', async () => {
    for (const name of ['ext-ts.ts', 'ext-js.js', 'ext-mjs.mjs']) {
      await upload(name, noopFilter({ name })).expect(200);
    }
    expect(await ids()).toEqual(expect.arrayContaining(['ext-ts', 'ext-js', 'ext-mjs']));
  });

  it('upload of a file that does not load → 400 naming the error; nothing is installed', async () => {
    const response = await upload('broken-upload.ts', broken);
    expectJsonError(response, 400, /broken-upload\.ts.*failed to load/);
    const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(list.body.data.map((entry: { id: string }) => entry.id)).not.toContain('broken-upload');
    expect(existsSync(path.join(runtime.filtersDir, 'broken-upload.ts'))).toBe(false);
  });

  it('upload of a broken version of a loaded filter → 400; the working version keeps serving, byte for byte', async () => {
    const good = noopFilter({ name: 'Keeper' });
    await upload('keeper.ts', good).expect(200);
    expectJsonError(await upload('keeper.ts', broken), 400, /keeper\.ts.*failed to load/);
    expect(readFileSync(path.join(runtime.filtersDir, 'keeper.ts'), 'utf8')).toBe(good);
    await request(runtime.app)
      .post('/keeper/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } })
      .expect(200, { model: 'm' });
    const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(list.body.data).toContainEqual(expect.objectContaining({ id: 'keeper', name: 'Keeper', status: 'loaded' }));
  });

  it('upload without multipart, or without a `file` field → 400', async () => {
    expectJsonError(await request(runtime.app).post('/pipelines/upload').set(runtime.auth).send({ file: 'x.ts' }), 400);
    const other = multipartFile('x.ts', noopFilter(), 'document');
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/upload')
        .set(runtime.auth)
        .set('Content-Type', other.contentType)
        .send(other.body),
      400,
      /file/,
    );
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/upload')
        .set(runtime.auth)
        .set('Content-Type', 'multipart/form-data; boundary=xyz')
        .send('garbage'),
      400,
    );
  });

  it.each(PREFIXES)('add downloads {url} from a server and loads it (prefix "%s")', async (prefix) => {
    const response = await request(runtime.app)
      .post(`${prefix}/pipelines/add`)
      .set(runtime.auth)
      .send({ url: files.url('/good.ts') })
      .expect(200);
    expect(response.body).toEqual({ status: true, detail: expect.stringContaining('good.ts') });
    expect(readFileSync(path.join(runtime.filtersDir, 'good.ts'), 'utf8')).toBe(noopFilter({ name: 'Good from URL' }));
    expect(await ids()).toContain('good');
  });

  it('add follows redirects like the Python server (requests.get), e.g. GitHub /raw/ links', async () => {
    const response = await request(runtime.app)
      .post('/pipelines/add')
      .set(runtime.auth)
      .send({ url: files.url('/user/repo/raw/main/moved.ts') });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 200,
      body: { status: true, detail: expect.stringContaining('moved.ts') },
    });
    expect(readFileSync(path.join(runtime.filtersDir, 'moved.ts'), 'utf8')).toBe(noopFilter({ name: 'Moved' }));
    await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({ id: 'moved' }).expect(200);
  });

  it('add: a redirect loop or a redirect to a non-http URL → 400, nothing written', async () => {
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url('/loop.ts') }),
      400,
      /download/i,
    );
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url('/to-file.ts') }),
      400,
      /download/i,
    );
    expect(existsSync(path.join(runtime.filtersDir, 'loop.ts'))).toBe(false);
    expect(existsSync(path.join(runtime.filtersDir, 'to-file.ts'))).toBe(false);
  });

  it('add: a download that fails (404, 500) → 400, nothing written', async () => {
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url('/missing.ts') }),
      400,
      /download/i,
    );
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url('/error.ts') }),
      400,
      /download/i,
    );
    expect(existsSync(path.join(runtime.filtersDir, 'missing.ts'))).toBe(false);
    expect(existsSync(path.join(runtime.filtersDir, 'error.ts'))).toBe(false);
  });

  it('add: a file that does not load → 400 naming the error; nothing is installed', async () => {
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url('/broken.ts') }),
      400,
      /failed to load/,
    );
    expect(existsSync(path.join(runtime.filtersDir, 'broken.ts'))).toBe(false);
    const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(list.body.data.map((entry: { id: string }) => entry.id)).not.toContain('broken');
  });

  it('add: bad request bodies and non-http URLs → 400', async () => {
    for (const payload of [
      {},
      { url: '' },
      { url: 42 },
      { url: 'not a url' },
      { url: 'file:///etc/passwd.ts' },
      { url: 'ftp://127.0.0.1/x.ts' },
      { url: 'javascript:alert(1).ts' },
    ]) {
      expectJsonError(await request(runtime.app).post('/pipelines/add').set(runtime.auth).send(payload), 400);
    }
  });

  it('delete removes the file and the filter; unknown or missing ids → 404 / 400', async () => {
    await upload('doomed.ts', noopFilter()).expect(200);
    await request(runtime.app)
      .delete('/v1/pipelines/delete')
      .set(runtime.auth)
      .send({ id: 'doomed' })
      .expect(200, { status: true, detail: 'Pipeline doomed deleted successfully' });
    expect(existsSync(path.join(runtime.filtersDir, 'doomed.ts'))).toBe(false);
    expect(await ids()).not.toContain('doomed');
    expectJsonError(
      await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({ id: 'doomed' }),
      404,
      'Pipeline doomed not found',
    );
    expectJsonError(await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({}), 400);
    expectJsonError(await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({ id: '' }), 400);
    expectJsonError(await request(runtime.app).delete('/pipelines/delete').set(runtime.auth), 400);
  });

  it('delete keeps the saved valves: re-adding the file restores them (Python behaviour)', async () => {
    await request(runtime.app).post('/turn-limit/valves/update').set(runtime.auth).send({ max_turns: '6' }).expect(200);
    const source = readFileSync(path.join(runtime.filtersDir, 'turn-limit.ts'));
    await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({ id: 'turn-limit' }).expect(200);
    await upload('turn-limit.ts', source).expect(200);
    const valves = await request(runtime.app).get('/turn-limit/valves').set(runtime.auth).expect(200);
    expect(valves.body.max_turns).toBe(6);
  });

  it('the filters directory holds only what was installed (no temp files left behind)', () => {
    expect(
      readdirSync(runtime.filtersDir)
        .filter((name) => name.startsWith('.'))
        .filter((name) => name.endsWith('.tmp')),
    ).toEqual([]);
  });
});

describe('a rejected upload does not change what loads later', () => {
  let runtime: TestRuntime;
  const named = (name: string) =>
    filterSource(
      `export default defineFilter({ id: 'shared', name: ${JSON.stringify(name)}, inlet: ({ body }) => ({ ...body, by: ${JSON.stringify(name)} }) });`,
    );
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'm-original.ts': named('Original') } });
  });
  afterAll(async () => runtime.dispose());

  it('an upload whose id clashes with a loaded filter → 400, and after a restart the original still answers', async () => {
    const form = multipartFile('a-impostor.ts', named('Impostor'));
    const response = await request(runtime.app)
      .post('/pipelines/upload')
      .set(runtime.auth)
      .set('Content-Type', form.contentType)
      .send(form.body);
    expectJsonError(response, 400, /duplicate filter id "shared"/);
    const before = await request(runtime.app)
      .post('/shared/filter/inlet')
      .set(runtime.auth)
      .send({ body: {} })
      .expect(200);
    expect(before.body.by).toBe('Original');
    runtime = await runtime.restart();
    const after = await request(runtime.app)
      .post('/shared/filter/inlet')
      .set(runtime.auth)
      .send({ body: {} })
      .expect(200);
    expect(after.body.by).toBe('Original');
  });
});
