import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';

describe('server smoke', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['turn-limit.ts', 'system-prefix.ts'] });
  });
  afterAll(async () => runtime.dispose());

  it('loads shipped filters through the real loader and lists them in /models', async () => {
    const response = await request(runtime.app).get('/v1/models').set(runtime.auth).expect(200);
    expect(response.body.pipelines).toBe(true);
    expect(response.body.data.map((model: { id: string }) => model.id).sort()).toEqual(['system-prefix', 'turn-limit']);
  });

  it('blocks a conversation over the turn limit with a JSON 429', async () => {
    await request(runtime.app)
      .post('/turn-limit/valves/update')
      .set(runtime.auth)
      .send({ max_turns: '2', pipelines: '*' })
      .expect(200);
    const messages = [1, 2, 3].flatMap((turn) => [
      { role: 'user', content: `q${turn}` },
      { role: 'assistant', content: `a${turn}` },
    ]);
    const response = await request(runtime.app)
      .post('/turn-limit/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages }, user: { id: 'u1', role: 'user' } })
      .expect(429);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.body.detail).toMatch(/limit is 2/);
  });
});
