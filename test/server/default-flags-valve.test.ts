import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource } from './helpers/filter-source.js';

/**
 * A filter names the user valve that holds a user's default `!flag` block (`defaultFlagsValve`); the host reads that
 * valve, whatever its name, and no other.
 */

/** Registers `shout`; its user valve `my_flags` holds the defaults. Reports whether `shout` is on. */
const declared = filterSource(`export default defineFilter({
  name: 'Declared',
  userValves: z.object({ my_flags: z.string().default('').describe('Your default flags') }),
  defaultFlagsValve: 'my_flags',
  flags: [{ key: 'shout', kind: 'boolean', description: 'shout' }],
  inlet: ({ body, flags }) => ({ ...body, shout: flags.has('shout') }),
});`);

/** Has a user valve called \`default_flags\` but declares none: the host reads no defaults for it. */
const undeclared = filterSource(`export default defineFilter({
  name: 'Undeclared',
  userValves: z.object({ default_flags: z.string().default('') }),
  flags: [{ key: 'whisper', kind: 'boolean', description: 'whisper' }],
  inlet: ({ body, flags }) => ({ ...body, whisper: flags.has('whisper') }),
});`);

const unknownValve = filterSource(`export default defineFilter({
  userValves: z.object({ my_flags: z.string().default('') }),
  defaultFlagsValve: 'nope',
  inlet: ({ body }) => body,
});`);

const numberValve = filterSource(`export default defineFilter({
  userValves: z.object({ level: z.number().int().default(0) }),
  defaultFlagsValve: 'level',
  inlet: ({ body }) => body,
});`);

describe.each(['off', 'auto'])('defaultFlagsValve (FILTER_ISOLATION=%s)', (isolation) => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: {
        'declared.ts': declared,
        'undeclared.ts': undeclared,
        'unknown-valve.ts': unknownValve,
        'number-valve.ts': numberValve,
      },
      env: { FILTER_ISOLATION: isolation },
    });
  });
  afterAll(async () => runtime.dispose());

  const setUserValves = (id: string, user: string, values: Record<string, unknown>) =>
    request(runtime.app).post(`/${id}/valves/user/update`).query({ user_id: user }).set(runtime.auth).send(values);
  const inlet = (id: string, user: string, chat: string) =>
    request(runtime.app)
      .post(`/${id}/filter/inlet`)
      .set(runtime.auth)
      .send({
        body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], metadata: { chat_id: chat } },
        user: { id: user, role: 'user' },
      })
      .expect(200);

  it("applies the declared valve's flag block to the user's chats, and only that user's", async () => {
    await setUserValves('declared', 'u-shout', { my_flags: 'shout' }).expect(200);
    expect((await inlet('declared', 'u-shout', `c-shout-${isolation}`)).body.shout).toBe(true);
    expect((await inlet('declared', 'u-plain', `c-plain-${isolation}`)).body.shout).toBe(false);
  });

  it('reads no defaults from a user valve the filter did not declare, whatever its name', async () => {
    await setUserValves('undeclared', 'u-whisper', { default_flags: 'whisper' }).expect(200);
    expect((await inlet('undeclared', 'u-whisper', `c-whisper-${isolation}`)).body.whisper).toBe(false);
  });

  it('a declaration naming no user valve, or a valve that is not text, fails the file with a clear error', async () => {
    const { body } = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    const byId = Object.fromEntries(body.data.map((entry: { id: string }) => [entry.id, entry]));
    expect(byId['unknown-valve']).toMatchObject({ status: 'failed' });
    expect(byId['unknown-valve'].error).toMatch(/defaultFlagsValve "nope" is not one of its userValves/);
    expect(byId['number-valve']).toMatchObject({ status: 'failed' });
    expect(byId['number-valve'].error).toMatch(/defaultFlagsValve "level" must be a string user valve/);
    expect(byId.declared).toMatchObject({ status: 'loaded' });
  });
});
