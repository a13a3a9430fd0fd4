import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { pipeSource } from '../pipes/helpers/pipe-source.js';
import { filterSource } from './helpers/filter-source.js';

/**
 * `eventsReachUser` tells a hook whether its `emit` reaches the person in the chat: through the generated Function's
 * answer yes, over a Pipelines outlet no (Open WebUI's Pipelines calls carry no events back; they are only logged),
 * and over a Pipelines inlet only when the chat's model is one of Eunoe's pipes (its stream carries the held events).
 */
const REPORTER = filterSource(`export default defineFilter({
  inlet: ({ body, eventsReachUser }) => ({ ...body, reach: eventsReachUser }),
  outlet: ({ body, eventsReachUser }) => ({ ...body, reach: eventsReachUser }),
});`);
const PIPE = pipeSource(`export default definePipe({ name: 'Echo', pipe: () => 'ok' });`);
const user = { id: 'u1', email: 'u1@example.com', name: 'U', role: 'user' };
const body = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hello' }] };

describe.each(['off', 'worker'] as const)('HookArgs.eventsReachUser (FILTER_ISOLATION=%s)', (isolation) => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: { 'reporter.ts': REPORTER, 'echo.ts': PIPE },
      env: { FILTER_ISOLATION: isolation },
    });
  });
  afterAll(async () => runtime?.dispose());

  /** What the reporter filter saw in `hook` for a chat of `model`: over the Pipelines route or the Function's. */
  async function seen(route: 'pipelines' | 'function', hook: string, model = body.model): Promise<unknown> {
    const path = route === 'pipelines' ? `/reporter/filter/${hook}` : `/integrations/open-webui/${hook}`;
    const response = await request(runtime.app)
      .post(path)
      .set(runtime.auth)
      .send({ user, body: { ...body, model } })
      .expect(200);
    return route === 'pipelines' ? response.body.reach : response.body.body.reach;
  }

  it('is false on the Pipelines connection when the model is not one of Eunoe pipes, in and out', async () => {
    expect(await seen('pipelines', 'inlet')).toBe(false);
    expect(await seen('pipelines', 'outlet')).toBe(false);
  });

  it("is true on a Pipelines inlet when the chat's model is one of Eunoe's pipes: its stream carries the events", async () => {
    expect(await seen('pipelines', 'inlet', 'echo')).toBe(true);
    // The outlet of the same chat has no such channel.
    expect(await seen('pipelines', 'outlet', 'echo')).toBe(false);
  });

  it("is true through the generated Function's routes, whose answer carries the events", async () => {
    expect(await seen('function', 'inlet')).toBe(true);
    expect(await seen('function', 'outlet')).toBe(true);
  });
});
