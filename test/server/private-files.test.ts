import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { createLogger } from '../../src/core/util/logger.js';
import { startServerProcess } from '../helpers/server-process.js';
import { noopFilter, filterSource } from './helpers/filter-source.js';

const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);

const secretive = filterSource(`export default defineFilter({
  valves: baseValves.extend({ summary_api_key: z.string().default('') }),
  userValves: z.object({ note: z.string().default('') }),
  inlet: ({ body }) => body,
});`);

/** A runtime in `root` (no API key configured: one is generated), logging JSON lines into `lines`. */
async function start(root: string, lines: string[], printed: string[] = []): Promise<Runtime> {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig(
    // Where the filters run is not the subject: the test's thread, not a worker each (tsx + zod + the SDK).
    {
      FILTER_LOAD_TIMEOUT_MS: '60000', // a liveness bound for worker imports on a busy machine
      LOG_LEVEL: 'info',
      WATCH_FILTERS: 'false',
      PRICING_FETCH: 'false',
      SHIPPED_FILTERS: 'none',
      FILTER_ISOLATION: 'off',
    },
    root,
  );
  // A generated key is printed on stdout for the operator: kept here (and checked) instead of the test output.
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    printed.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  });
  try {
    return await createRuntime({ config, logger: createLogger({ level: 'info', destination }), watch: false });
  } finally {
    write.mockRestore();
  }
}

/**
 * Secrets and private data are owner-only: the API key, saved valves (the summarizer's API key)
 * and the SQLite state with its -wal/-shm files are 0600, their directories 0700 — whatever the
 * umask; files an older version left world-readable are fixed at start-up, with a log line.
 */
describe('private files (umask 022)', () => {
  let root: string;
  let runtime: Runtime | undefined;
  let umask: number;
  beforeAll(() => {
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
  });
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  const prepare = () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-private-'));
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(root, 'filters', 'secretive.ts'), secretive);
    writeFileSync(path.join(root, 'filters', 'plain.ts'), noopFilter());
  };
  const files = () => ({
    data: path.join(root, 'data'),
    key: path.join(root, 'data', 'api-key'),
    db: path.join(root, 'data', 'eunoe.db'),
    wal: path.join(root, 'data', 'eunoe.db-wal'),
    shm: path.join(root, 'data', 'eunoe.db-shm'),
    valves: path.join(root, 'valves'),
    saved: path.join(root, 'valves', 'secretive.json'),
  });

  it('new files are created 0600 in 0700 directories', async () => {
    prepare();
    const printed: string[] = [];
    runtime = await start(root, [], printed);
    expect(printed).toEqual([
      `Eunoe generated an API key: ${runtime.apiKey}`,
      expect.stringContaining(`It is saved in ${files().key}.`),
    ]);
    const auth = { Authorization: `Bearer ${runtime.apiKey}` };
    await request(runtime.app)
      .post('/secretive/valves/update')
      .set(auth)
      .send({ summary_api_key: 'sk-secret' })
      .expect(200);
    await request(runtime.app)
      .post('/secretive/valves/user/update?user_id=u1')
      .set(auth)
      .send({ note: 'private' })
      .expect(200);
    const f = files();
    expect(existsSync(f.wal) && existsSync(f.shm)).toBe(true);
    expect({ data: modeOf(f.data), valves: modeOf(f.valves) }).toEqual({ data: '700', valves: '700' });
    expect({
      key: modeOf(f.key),
      db: modeOf(f.db),
      wal: modeOf(f.wal),
      shm: modeOf(f.shm),
      saved: modeOf(f.saved),
    }).toEqual({ key: '600', db: '600', wal: '600', shm: '600', saved: '600' });
  });

  it('files an older version left 0644 in 0755 directories are fixed at start-up, each with a log line', async () => {
    prepare();
    runtime = await start(root, []);
    await request(runtime.app)
      .post('/secretive/valves/update')
      .set({ Authorization: `Bearer ${runtime.apiKey}` })
      .send({ summary_api_key: 'sk-secret' })
      .expect(200);
    const f = files();
    // The state an older version left: world-readable everything (the database stays open, so its -wal/-shm exist).
    for (const dir of [f.data, f.valves]) chmodSync(dir, 0o755);
    for (const file of [f.key, f.db, f.wal, f.shm, f.saved]) chmodSync(file, 0o644);
    await runtime.close();
    runtime = undefined;
    for (const file of [f.key, f.db, f.saved]) expect(modeOf(file)).toBe('644');

    const lines: string[] = [];
    runtime = await start(root, lines);
    for (const dir of [f.data, f.valves]) expect({ dir, mode: modeOf(dir) }).toEqual({ dir, mode: '700' });
    for (const file of [f.key, f.db, f.wal, f.shm, f.saved])
      if (existsSync(file)) expect({ file, mode: modeOf(file) }).toEqual({ file, mode: '600' });
    const fixed = lines
      .map((line) => JSON.parse(line) as { msg: string; file?: string; from?: string; to?: string })
      .filter((line) => line.msg.startsWith('made private'));
    expect(fixed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: f.key, from: '0644', to: '0600' }),
        expect.objectContaining({ file: f.db, from: '0644', to: '0600' }),
        expect.objectContaining({ file: f.saved, from: '0644', to: '0600' }),
        expect.objectContaining({ file: f.data, from: '0755', to: '0700' }),
        expect.objectContaining({ file: f.valves, from: '0755', to: '0700' }),
      ]),
    );
    // The fixed files still work: the saved key and valves are read back.
    expect(runtime.registry.get('secretive')?.valves).toMatchObject({ summary_api_key: 'sk-secret' });
  });

  it('the server process (npm start) creates its data directory and key owner-only', async () => {
    prepare();
    const server = await startServerProcess({
      FILTERS_DIR: path.join(root, 'filters'),
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
      PIPELINES_API_KEY: '',
      WATCH_FILTERS: 'false',
      FILTER_ISOLATION: 'off',
    });
    try {
      const f = files();
      expect({ data: modeOf(f.data), key: modeOf(f.key), db: modeOf(f.db) }).toEqual({
        data: '700',
        key: '600',
        db: '600',
      });
    } finally {
      await server.stop();
    }
  }, 90_000);
});
