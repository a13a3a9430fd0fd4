import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { SECRET_MASK } from '../../src/runtime/host/secret-valves.js';
import { createTestRuntime, SDK_SPECIFIER, type TestRuntime } from '../helpers/create-test-runtime.js';
import { captureLogger } from '../state/helpers/capture-logger.js';

/** A filter with a secret admin valve and a secret user valve; its inlet shows what it was given. */
const keyed = `import { defineFilter, baseValves, secret, z } from ${JSON.stringify(SDK_SPECIFIER)};
export default defineFilter({
  name: 'Keyed',
  valves: baseValves.extend({
    pipelines: z.array(z.string()).default(['*']),
    upstream_key: secret(z.string().default('')).describe('Key of the upstream API'),
    region: z.string().default('eu'),
  }),
  userValves: z.object({ token: secret(z.string().default('')), note: z.string().default('') }),
  inlet: ({ body, valves, userValves }) => ({ ...body, seen: { key: valves.upstream_key, token: userValves.token } }),
});
`;

const inlet = (runtime: { app: TestRuntime['app'] }, auth: Record<string, string>, userId = 'u1') =>
  request(runtime.app)
    .post('/keyed/filter/inlet')
    .set(auth)
    .send({ body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, user: { id: userId } })
    .expect(200);

describe('secret valves', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'], sources: { 'keyed.ts': keyed } });
  });
  afterAll(async () => runtime.dispose());

  it('the spec marks secret fields as passwords (the context filter’s summary_api_key too)', async () => {
    const spec = await request(runtime.app).get('/keyed/valves/spec').set(runtime.auth).expect(200);
    expect(spec.body.properties.upstream_key).toMatchObject({ type: 'string', format: 'password', secret: true });
    expect(spec.body.properties.region.format).toBeUndefined();
    const context = await request(runtime.app).get('/context/valves/spec').set(runtime.auth).expect(200);
    expect(context.body.properties.summary_api_key).toMatchObject({ format: 'password', secret: true });
    const user = await request(runtime.app).get('/keyed/valves/user/spec').set(runtime.auth).expect(200);
    expect(user.body.properties.token).toMatchObject({ format: 'password' });
  });

  it('an unset secret reads as empty; a set one is masked on read and in the update answer', async () => {
    const before = await request(runtime.app).get('/keyed/valves').set(runtime.auth).expect(200);
    expect(before.body.upstream_key).toBe('');
    const saved = await request(runtime.app)
      .post('/keyed/valves/update')
      .set(runtime.auth)
      .send({ ...before.body, upstream_key: 'sk-live-123' })
      .expect(200);
    expect(saved.body.upstream_key).toBe(SECRET_MASK);
    expect(saved.text).not.toContain('sk-live-123');
    const read = await request(runtime.app).get('/v1/keyed/valves').set(runtime.auth).expect(200);
    expect(read.body).toMatchObject({ upstream_key: SECRET_MASK, region: 'eu' });
    expect(read.text).not.toContain('sk-live-123');
    // The filter itself gets the real key.
    expect((await inlet(runtime, runtime.auth)).body.seen.key).toBe('sk-live-123');
  });

  it('an update carrying the mask (the form resending what it read) keeps the stored secret', async () => {
    await request(runtime.app)
      .post('/keyed/valves/update')
      .set(runtime.auth)
      .send({ upstream_key: 'sk-kept' })
      .expect(200);
    const form = (await request(runtime.app).get('/keyed/valves').set(runtime.auth).expect(200)).body;
    await request(runtime.app)
      .post('/keyed/valves/update')
      .set(runtime.auth)
      .send({ ...form, region: 'us' })
      .expect(200);
    expect((await inlet(runtime, runtime.auth)).body.seen.key).toBe('sk-kept');
    const file = JSON.parse(readFileSync(path.join(runtime.config.VALVES_DIR, 'keyed.json'), 'utf8'));
    expect(file).toMatchObject({ upstream_key: 'sk-kept', region: 'us' });
    // A new value replaces it; an empty one clears it.
    await request(runtime.app)
      .post('/keyed/valves/update')
      .set(runtime.auth)
      .send({ ...form, upstream_key: 'sk-new' })
      .expect(200);
    expect((await inlet(runtime, runtime.auth)).body.seen.key).toBe('sk-new');
    await request(runtime.app)
      .post('/keyed/valves/update')
      .set(runtime.auth)
      .send({ ...form, upstream_key: '' })
      .expect(200);
    expect((await inlet(runtime, runtime.auth)).body.seen.key).toBe('');
  });

  it('the context filter masks summary_api_key and keeps it on a masked update', async () => {
    const form = (await request(runtime.app).get('/context/valves').set(runtime.auth).expect(200)).body;
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ ...form, summary_api_key: 'sk-summary' })
      .expect(200);
    const read = (await request(runtime.app).get('/context/valves').set(runtime.auth).expect(200)).body;
    expect(read.summary_api_key).toBe(SECRET_MASK);
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ ...read, max_tokens: 9000 })
      .expect(200);
    expect(runtime.registry.get('context')?.valves).toMatchObject({ summary_api_key: 'sk-summary', max_tokens: 9000 });
  });

  it('user valves: masked on read, kept on a masked update, per user', async () => {
    await request(runtime.app)
      .post('/keyed/valves/user/update?user_id=u1')
      .set(runtime.auth)
      .send({ token: 'tok-u1', note: 'a' })
      .expect(200)
      .expect((response) => expect(response.body.token).toBe(SECRET_MASK));
    const read = (await request(runtime.app).get('/keyed/valves/user?user_id=u1').set(runtime.auth).expect(200)).body;
    expect(read).toEqual({ token: SECRET_MASK, note: 'a' });
    await request(runtime.app)
      .post('/keyed/valves/user/update?user_id=u1')
      .set(runtime.auth)
      .send({ ...read, note: 'b' })
      .expect(200);
    expect((await inlet(runtime, runtime.auth, 'u1')).body.seen.token).toBe('tok-u1');
    // Another user sending the mask has nothing stored: the default (empty) applies, never u1's token.
    await request(runtime.app)
      .post('/keyed/valves/user/update?user_id=u2')
      .set(runtime.auth)
      .send({ token: SECRET_MASK })
      .expect(200);
    expect((await inlet(runtime, runtime.auth, 'u2')).body.seen.token).toBe('');
  });
});

describe('secrets in logs', () => {
  let root: string;
  let runtime: Runtime;
  const captured = captureLogger();
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-secret-logs-'));
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(root, 'filters', 'keyed.ts'), keyed);
    const config = loadConfig(
      {
        FILTER_LOAD_TIMEOUT_MS: '60000', // a liveness bound for worker imports on a busy machine
        PIPELINES_API_KEY: 'log-test-key-123',
        LOG_LEVEL: 'debug',
        WATCH_FILTERS: 'false',
        PRICING_FETCH: 'false',
        SHIPPED_FILTERS: 'none',
      },
      root,
    );
    runtime = await createRuntime({ config, logger: captured.logger, watch: false });
  });
  afterAll(async () => {
    await runtime.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('no log line at debug level carries a secret valve, the API key or an Authorization header', async () => {
    const auth = { Authorization: 'Bearer log-test-key-123' };
    await request(runtime.app).post('/keyed/valves/update').set(auth).send({ upstream_key: 'sk-never-logged' });
    await request(runtime.app)
      .post('/keyed/valves/user/update?user_id=u1')
      .set(auth)
      .send({ token: 'tok-never-logged' });
    await inlet(runtime, auth);
    captured.logger.info({ valves: { upstream_key: 'x', summary_api_key: 'sk-in-a-field' } }, 'direct');
    const text = JSON.stringify(captured.lines);
    expect(captured.lines.length).toBeGreaterThan(3);
    for (const secret of ['sk-never-logged', 'tok-never-logged', 'log-test-key-123', 'sk-in-a-field'])
      expect(text).not.toContain(secret);
    expect(captured.lines.find((line) => line.msg === 'direct')).toMatchObject({
      valves: { summary_api_key: '[redacted]' },
    });
  });
});
