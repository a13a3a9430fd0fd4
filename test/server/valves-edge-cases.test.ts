import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';

describe('inline user.valves with an invalid field', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['system-prefix.ts'] });
  });
  afterAll(async () => runtime.dispose());

  it('applies the valid fields and ignores the invalid one instead of blocking the chat', async () => {
    const response = await request(runtime.app)
      .post('/system-prefix/filter/inlet')
      .set(runtime.auth)
      .send({
        body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        user: { id: 'u1', role: 'user', valves: { prefix: 'Answer in French.', enabled: 'lots' } },
      })
      .expect(200);
    expect(response.body.messages[0]).toEqual({ role: 'system', content: 'Answer in French.' });
  });

  it('an invalid inline value alone falls back to the saved value', async () => {
    await request(runtime.app)
      .post('/system-prefix/valves/user/update?user_id=u2')
      .set(runtime.auth)
      .send({ prefix: 'Be brief.', enabled: 'false' })
      .expect(200);
    const response = await request(runtime.app)
      .post('/system-prefix/filter/inlet')
      .set(runtime.auth)
      .send({
        body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        user: { id: 'u2', valves: { enabled: 'maybe' } },
      })
      .expect(200);
    // enabled stays false (saved), so no prefix is added.
    expect(response.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('object valves typed as JSON text in the admin form', () => {
  it('parses a JSON object string for an object valve and rejects malformed JSON with a 400', async () => {
    const runtime = await createTestRuntime({ filters: ['spend-limit.ts'] });
    try {
      const ok = await request(runtime.app)
        .post('/spend-limit/valves/update')
        .set(runtime.auth)
        .send({ role_limits: '{"user": {"monthly_usd": 20}}', daily_limit_usd: '1.5' })
        .expect(200);
      expect(ok.body.role_limits).toEqual({ user: { daily_usd: null, monthly_usd: 20 } });
      expect(ok.body.daily_limit_usd).toBe(1.5);
      const bad = await request(runtime.app)
        .post('/spend-limit/valves/update')
        .set(runtime.auth)
        .send({ role_limits: '{user: 20' })
        .expect(400);
      expect(bad.body.detail).toMatch(/role_limits/);
    } finally {
      await runtime.dispose();
    }
  });
});

describe('admin valves: the newer of the file and the shared copy wins', () => {
  it('a valves file edited by hand after the last save is used after a restart (not reverted by the store)', async () => {
    const { utimesSync, writeFileSync } = await import('node:fs');
    const path = await import('node:path');
    let runtime = await createTestRuntime({ filters: ['turn-limit.ts'] });
    try {
      await request(runtime.app)
        .post('/turn-limit/valves/update')
        .set(runtime.auth)
        .send({ max_turns: '80' })
        .expect(200);
      const file = path.join(runtime.config.VALVES_DIR, 'turn-limit.json');
      writeFileSync(file, JSON.stringify({ max_turns: 20 }));
      const later = new Date(Date.now() + 5000);
      utimesSync(file, later, later);
      runtime = await runtime.restart();
      const valves = await request(runtime.app).get('/turn-limit/valves').set(runtime.auth).expect(200);
      expect(valves.body.max_turns).toBe(20);
      // And a save through the API wins again afterwards.
      await request(runtime.app)
        .post('/turn-limit/valves/update')
        .set(runtime.auth)
        .send({ max_turns: '30' })
        .expect(200);
      runtime = await runtime.restart();
      expect((await request(runtime.app).get('/turn-limit/valves').set(runtime.auth).expect(200)).body.max_turns).toBe(
        30,
      );
    } finally {
      await runtime.dispose();
    }
  });
});
