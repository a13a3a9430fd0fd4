import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { noopFilter } from './helpers/filter-source.js';
import { expectJsonError } from './helpers/http.js';
import { startLoopback, type LoopbackServer } from './helpers/loopback.js';
import { multipartFile } from './helpers/multipart.js';

/** Every file under `dir` (relative paths), skipping the SQLite data directory. */
function tree(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (path.relative(base, full) === 'data') return [];
    return statSync(full).isDirectory() ? tree(full, base) : [path.relative(base, full)];
  });
}

const HOSTILE_UPLOAD_NAMES = [
  '../evil.ts',
  '..%2Fevil.ts',
  '../../evil.ts',
  '/abs/evil.ts',
  'a/b.ts',
  '..\\evil.ts',
  'C:\\evil.ts',
  '.hidden.ts',
  'evil.py',
  'evil.txt',
  'evil.d.ts',
  'evil.ts.py',
  'evil',
  '',
  'evil name.ts',
];

describe('hostile management input', () => {
  let runtime: TestRuntime;
  let files: LoopbackServer;
  let before: string[];
  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['turn-limit.ts'],
      env: { UPLOAD_LIMIT: '4kb', ADD_URL_TIMEOUT_MS: '300', ADD_URL_ALLOW_PRIVATE: 'true' },
    });
    files = await startLoopback({
      '/slow.ts': { kind: 'slow', delayMs: 5000, body: noopFilter() },
      '/huge-declared.ts': { kind: 'huge', bytes: 64 * 1024, declareLength: true },
      '/huge-chunked.ts': { kind: 'huge', bytes: 64 * 1024, declareLength: false },
    });
    before = tree(runtime.root);
  });
  afterAll(async () => {
    await files.close();
    await runtime.dispose();
  });
  /** Nothing was written anywhere: not in the filters dir, not beside it, not in the temp dir. */
  const expectUntouched = () => {
    expect(tree(runtime.root)).toEqual(before);
    expect(existsSync(path.join(runtime.root, 'evil.ts'))).toBe(false);
    expect(existsSync(path.join(path.dirname(runtime.root), 'evil.ts'))).toBe(false);
    expect(existsSync(path.join(os.tmpdir(), 'evil.ts'))).toBe(false);
    expect(existsSync('/abs/evil.ts')).toBe(false);
  };
  afterEach(async () => {
    // Undo whatever a failing case wrote, so one failure does not cascade into the next cases.
    for (const extra of tree(runtime.root).filter((file) => !before.includes(file))) {
      rmSync(path.join(runtime.root, extra), { force: true });
      await runtime.registry.reloadFile(path.join(runtime.root, extra));
    }
  });
  const upload = (name: string, content: string | Buffer) => {
    const form = multipartFile(name, content);
    return request(runtime.app)
      .post('/pipelines/upload')
      .set(runtime.auth)
      .set('Content-Type', form.contentType)
      .send(form.body);
  };

  it.each(HOSTILE_UPLOAD_NAMES)('upload named %j → 400, nothing written', async (name) => {
    expectJsonError(await upload(name, noopFilter()), 400);
    expectUntouched();
  });

  it('upload over UPLOAD_LIMIT → 413, nothing written, no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const big = `${noopFilter()}\n// ${'x'.repeat(8 * 1024)}\n`;
      expectJsonError(await upload('big.ts', big), 413);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expectUntouched();
    expect(unhandled.map(String)).toEqual([]);
  });

  it.each([
    ['/..%2Fevil.ts'],
    ['/..%2F..%2Fevil.ts'],
    ['/%2Fabs%2Fevil.ts'],
    ['/a%2Fb.ts'],
    ['/..%5Cevil.ts'],
    ['/evil.py'],
    ['/evil.txt'],
    ['/evil.d.ts'],
    ['/.hidden.ts'],
    ['/evil%20name.ts'],
    ['/'],
    ['/%E0%A4%A.ts'],
  ])('add from a URL path %s → 400 before anything is downloaded', async (pathname) => {
    const hits = files.hits.length;
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url(pathname) }),
      400,
    );
    expect(files.hits.length).toBe(hits);
    expectUntouched();
  });

  it('add: a download over UPLOAD_LIMIT → 413 (declared length and chunked)', async () => {
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url('/huge-declared.ts') }),
      413,
    );
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url('/huge-chunked.ts') }),
      413,
    );
    expectUntouched();
  });

  it('add: a server that does not answer within ADD_URL_TIMEOUT_MS → 400', async () => {
    expectJsonError(
      await request(runtime.app)
        .post('/pipelines/add')
        .set(runtime.auth)
        .send({ url: files.url('/slow.ts') }),
      400,
      /download/i,
    );
    expectUntouched();
  });

  it('delete with a traversal id → 404 and nothing deleted outside the filters dir', async () => {
    const outside = path.join(runtime.root, 'victim.ts');
    writeFileSync(outside, 'keep me');
    mkdirSync(path.join(runtime.root, 'sub'), { recursive: true });
    writeFileSync(path.join(runtime.root, 'sub', 'victim.ts'), 'keep me');
    before = tree(runtime.root);
    for (const id of [
      '../victim',
      '../victim.ts',
      '..%2Fvictim',
      '/etc/passwd',
      'sub/victim',
      '../sub/victim',
      '.',
      '..',
      'turn-limit/../../victim',
    ]) {
      expectJsonError(await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({ id }), 404);
    }
    expect(existsSync(outside)).toBe(true);
    expect(existsSync(path.join(runtime.filtersDir, 'turn-limit.ts'))).toBe(true);
    expectUntouched();
  });
});
