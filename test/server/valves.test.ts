import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource } from './helpers/filter-source.js';
import { waitFor } from '../helpers/wait-for.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

/** A filter with one valve of every shape Open WebUI's form must render; records onValvesUpdated. */
const kitchenSink = (logFile: string) => `import { appendFileSync } from 'node:fs';
${filterSource(`export default defineFilter({
  name: 'Kitchen Sink',
  valves: baseValves.extend({
    max_turns: z.number().int().min(1).default(25).describe('Most user turns one chat may have'),
    ratio: z.number().default(0.25).describe('Share of the budget'),
    enabled: z.boolean().default(true).describe('Turn it on'),
    mode: z.enum(['fast', 'slow']).default('fast').describe('Speed'),
    target_user_roles: z.array(z.string()).default(['user']).describe('Roles the limit applies to'),
    limits: z.array(z.number().int()).default([1, 2]),
    OPENAI_API_KEY: z.string().default(''),
    budget: z.number().nullable().default(null).describe('Optional budget'),
    tags: z.array(z.string()).nullable().default(null),
  }),
  onValvesUpdated({ valves }) {
    appendFileSync(${JSON.stringify(logFile)}, JSON.stringify(valves) + '\\n');
  },
  inlet: ({ body, valves }) => ({ ...body, valves }),
});`)}`;

const DEFAULTS = {
  pipelines: ['*'],
  priority: 0,
  max_turns: 25,
  ratio: 0.25,
  enabled: true,
  mode: 'fast',
  target_user_roles: ['user'],
  limits: [1, 2],
  OPENAI_API_KEY: '',
  budget: null,
  tags: null,
};

describe('admin valves', () => {
  let runtime: TestRuntime;
  let logFile: string;
  const updates = () =>
    readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  beforeAll(async () => {
    runtime = await createTestRuntime();
    logFile = path.join(runtime.root, 'valves-updated.log');
    // The log path is only known now; install the filter through the upload-free path: write + reload.
    const { writeFileSync } = await import('node:fs');
    writeFileSync(logFile, '');
    writeFileSync(path.join(runtime.filtersDir, 'sink.ts'), kitchenSink(logFile));
    await request(runtime.app).post('/pipelines/reload').set(runtime.auth).expect(200);
  });
  afterAll(async () => runtime.dispose());

  it('GET /{id}/valves answers the defaults', async () => {
    const response = await request(runtime.app).get('/sink/valves').set(runtime.auth).expect(200);
    expect(response.body).toStrictEqual(DEFAULTS);
  });

  it('the spec is a pydantic-v2-style JSON schema Open WebUI can render', async () => {
    const { body: spec } = await request(runtime.app).get('/v1/sink/valves/spec').set(runtime.auth).expect(200);
    expect(spec.title).toBe('Valves');
    expect(spec.type).toBe('object');
    expect(spec.required ?? []).toEqual([]);
    expect(Object.keys(spec.properties)).toEqual(Object.keys(DEFAULTS));
    const p = spec.properties;
    expect(p.max_turns).toMatchObject({
      title: 'Max Turns',
      type: 'integer',
      default: 25,
      description: 'Most user turns one chat may have',
      minimum: 1,
    });
    expect(p.max_turns.maximum).toBeUndefined();
    expect(p.ratio).toMatchObject({ title: 'Ratio', type: 'number', default: 0.25 });
    expect(p.enabled).toMatchObject({ title: 'Enabled', type: 'boolean', default: true });
    expect(p.mode).toMatchObject({ title: 'Mode', type: 'string', enum: ['fast', 'slow'], default: 'fast' });
    expect(p.target_user_roles).toMatchObject({
      title: 'Target User Roles',
      type: 'array',
      items: { type: 'string' },
      default: ['user'],
    });
    expect(p.limits).toMatchObject({ title: 'Limits', type: 'array', items: { type: 'integer' }, default: [1, 2] });
    expect(p.OPENAI_API_KEY).toMatchObject({ title: 'Openai Api Key', type: 'string', default: '' });
    expect(p.pipelines).toMatchObject({ title: 'Pipelines', type: 'array', items: { type: 'string' }, default: ['*'] });
    expect(p.priority).toMatchObject({ title: 'Priority', type: 'integer', default: 0 });
    // Nullable → anyOf with no top-level type (pydantic's Optional[...]).
    expect(p.budget.type).toBeUndefined();
    expect(p.budget).toMatchObject({ title: 'Budget', default: null, description: 'Optional budget' });
    expect(p.budget.anyOf).toEqual(expect.arrayContaining([{ type: 'number' }, { type: 'null' }]));
    expect(p.budget.anyOf).toHaveLength(2);
    expect(p.tags.type).toBeUndefined();
    expect(p.tags.anyOf).toEqual(
      expect.arrayContaining([{ type: 'array', items: { type: 'string' } }, { type: 'null' }]),
    );
  });

  it.each(PREFIXES)(
    'an Open WebUI form update (untouched JSON + edited strings) is coerced (prefix "%s")',
    async (prefix) => {
      const form = {
        pipelines: ['gpt-4o', 'llama3'], // an edited array comes back as split(',').map(trim)
        priority: '5',
        max_turns: '10',
        ratio: '0.5',
        enabled: 'false',
        mode: 'slow',
        target_user_roles: ['user', 'admin'],
        limits: ['3', '4'],
        OPENAI_API_KEY: 'sk-test',
        budget: '2.5',
        tags: 'a, b',
      };
      const expected = {
        pipelines: ['gpt-4o', 'llama3'],
        priority: 5,
        max_turns: 10,
        ratio: 0.5,
        enabled: false,
        mode: 'slow',
        target_user_roles: ['user', 'admin'],
        limits: [3, 4],
        OPENAI_API_KEY: 'sk-test',
        budget: 2.5,
        tags: ['a', 'b'],
      };
      const response = await request(runtime.app)
        .post(`${prefix}/sink/valves/update`)
        .set(runtime.auth)
        .send(form)
        .expect(200);
      expect(response.body).toStrictEqual(expected);
      expect(
        (await request(runtime.app).get(`${prefix}/sink/valves`).set(runtime.auth).expect(200)).body,
      ).toStrictEqual(expected);
      // /models shows the new targets and priority at once.
      const models = await request(runtime.app).get(`${prefix}/models`).set(runtime.auth).expect(200);
      expect(models.body.data.find((model: { id: string }) => model.id === 'sink').pipeline).toMatchObject({
        pipelines: ['gpt-4o', 'llama3'],
        priority: 5,
      });
      // The hook sees them.
      const inlet = await request(runtime.app)
        .post(`${prefix}/sink/filter/inlet`)
        .set(runtime.auth)
        .send({ body: { model: 'gpt-4o' } })
        .expect(200);
      expect(inlet.body.valves).toStrictEqual(expected);
    },
  );

  it('"true"/"1"/"yes"/"0"/"no" are booleans, 1/0 numbers too; "None"/"" clear a nullable field', async () => {
    for (const [sent, value] of [
      ['true', true],
      ['1', true],
      ['yes', true],
      ['0', false],
      ['no', false],
      [1, true],
      [0, false],
      [false, false],
    ] as const) {
      const response = await request(runtime.app)
        .post('/sink/valves/update')
        .set(runtime.auth)
        .send({ ...DEFAULTS, enabled: sent })
        .expect(200);
      expect({ sent, enabled: response.body.enabled }).toEqual({ sent, enabled: value });
    }
    const cleared = await request(runtime.app)
      .post('/sink/valves/update')
      .set(runtime.auth)
      .send({ ...DEFAULTS, budget: '', tags: null })
      .expect(200);
    expect(cleared.body).toMatchObject({ budget: null, tags: null });
  });

  it('an update merges: missing fields keep their values, null takes the default', async () => {
    await request(runtime.app)
      .post('/sink/valves/update')
      .set(runtime.auth)
      .send({ ...DEFAULTS, max_turns: '9', mode: 'slow' })
      .expect(200);
    const response = await request(runtime.app)
      .post('/sink/valves/update')
      .set(runtime.auth)
      .send({ ratio: '0.75' })
      .expect(200);
    expect(response.body).toStrictEqual({ ...DEFAULTS, max_turns: 9, mode: 'slow', ratio: 0.75 });
    const reset = await request(runtime.app)
      .post('/sink/valves/update')
      .set(runtime.auth)
      .send({ max_turns: null, mode: null, ratio: null })
      .expect(200);
    expect(reset.body).toStrictEqual(DEFAULTS);
  });

  it('invalid values → 400 with field-level errors, and nothing changes', async () => {
    const good = await request(runtime.app)
      .post('/sink/valves/update')
      .set(runtime.auth)
      .send({ ...DEFAULTS, max_turns: 12 })
      .expect(200);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ max_turns: 'ten' }, ['max_turns']],
      [{ max_turns: '0' }, ['max_turns']],
      [{ max_turns: '2.5' }, ['max_turns']],
      [{ mode: 'medium' }, ['mode']],
      [{ enabled: 'maybe' }, ['enabled']],
      [{ OPENAI_API_KEY: 42 }, ['OPENAI_API_KEY']],
      [{ limits: ['1', 'x'] }, ['limits.1']],
      [{ max_turns: 'ten', ratio: 'half' }, ['max_turns', 'ratio']],
    ];
    for (const [patch, fields] of cases) {
      const response = await request(runtime.app)
        .post('/v1/sink/valves/update')
        .set(runtime.auth)
        .send({ ...DEFAULTS, ...patch });
      expectJsonError(response, 400);
      const paths = (response.body.errors as Array<{ path: string; message: string }>).map((entry) => entry.path);
      expect({ patch, paths: [...new Set(paths)].sort() }).toEqual({ patch, paths: [...fields].sort() });
      for (const entry of response.body.errors) expect(entry.message.length).toBeGreaterThan(0);
      for (const field of fields) expect(response.body.detail).toContain(field.split('.')[0]);
    }
    for (const payload of [[1, 2], 'text', null]) {
      expectJsonError(
        await request(runtime.app)
          .post('/sink/valves/update')
          .set(runtime.auth)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(payload)),
        400,
      );
    }
    expect((await request(runtime.app).get('/sink/valves').set(runtime.auth)).body).toStrictEqual(good.body);
  });

  it('onValvesUpdated is called once with the new values per successful update, never after a rejected one', async () => {
    // A successful update as a fence: a deferred call of earlier work (a store change notification)
    // would be logged before the fence's own call, so counting starts after everything earlier.
    const fence = async (maxTurns: number) => {
      await request(runtime.app)
        .post('/sink/valves/update')
        .set(runtime.auth)
        .send({ ...DEFAULTS, max_turns: maxTurns })
        .expect(200);
      await waitFor(updates, { until: (lines) => lines.some((line) => line.max_turns === maxTurns) });
    };
    await fence(40);
    const before = updates().length;
    await request(runtime.app)
      .post('/sink/valves/update')
      .set(runtime.auth)
      .send({ ...DEFAULTS, max_turns: '33' })
      .expect(200);
    await request(runtime.app)
      .post('/sink/valves/update')
      .set(runtime.auth)
      .send({ ...DEFAULTS, max_turns: 'bad' })
      .expect(400);
    await fence(41);
    const after = updates();
    expect(after.slice(before)).toEqual([
      expect.objectContaining({ max_turns: 33 }),
      expect.objectContaining({ max_turns: 41 }),
    ]);
  });
});

describe('a failing onValvesUpdated', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: {
        'picky.ts': filterSource(`export default defineFilter({
  valves: baseValves.extend({ api_key: z.string().default('') }),
  onValvesUpdated({ valves }) {
    if (valves.api_key === 'revoked') throw new Error('The upstream rejected this API key');
  },
  inlet: ({ body }) => body,
});`),
      },
    });
  });
  afterAll(async () => runtime.dispose());

  it("answers a JSON 500 whose detail is the hook's message, and the server keeps serving", async () => {
    const response = await request(runtime.app)
      .post('/picky/valves/update')
      .set(runtime.auth)
      .send({ api_key: 'revoked' });
    expectJsonError(response, 500, /The upstream rejected this API key/);
    await request(runtime.app).post('/picky/valves/update').set(runtime.auth).send({ api_key: 'fine' }).expect(200);
    await request(runtime.app)
      .post('/picky/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } })
      .expect(200, { model: 'm' });
  });

  it('the failure surfaces only in the response: no unhandled rejection afterwards', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await request(runtime.app)
        .post('/picky/valves/update')
        .set(runtime.auth)
        .send({ api_key: 'revoked' })
        .expect(500);
      // A whole request later, a rejection left over from the failed one would have been reported.
      await request(runtime.app).post('/picky/valves/update').set(runtime.auth).send({ api_key: 'fine' }).expect(200);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled.map(String)).toEqual([]);
  });
});
