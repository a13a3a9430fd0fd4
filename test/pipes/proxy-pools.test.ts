import { rmSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { proxyValves } from '../../src/features/proxy/proxy-valves.js';
import { UpstreamPools } from '../../src/features/proxy/upstream.js';
import { createTestRuntime, SDK_SPECIFIER, type TestRuntime } from '../helpers/create-test-runtime.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';

const user = { id: 'u-pools', email: 'pools@example.com', name: 'P', role: 'user' };

describe("the proxy's upstream connection pools", () => {
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.close());

  describe('UpstreamPools on its own', () => {
    const open: UpstreamPools[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((pools) => pools.close()));
    });
    const pools = () => {
      const made = new UpstreamPools();
      open.push(made);
      return made;
    };
    const models = async (owner: UpstreamPools, valves: ReturnType<typeof proxyValves.parse>) => {
      const response = await owner.request(valves, '/models', { method: 'GET' });
      return { status: response.statusCode, ids: ((await response.body.json()) as { data: unknown[] }).data.length };
    };

    it('a request after close() (same valves object) gets a new pool and is answered', async () => {
      const owner = pools();
      const valves = proxyValves.parse({ base_url: fake.url, api_key: 'sk' });
      expect((await models(owner, valves)).status).toBe(200);
      await owner.close();
      expect((await models(owner, valves)).status).toBe(200);
      expect((await models(owner, valves)).status).toBe(200);
    });

    it("closing one instance's pools leaves another instance's pools (same upstream) working", async () => {
      const first = pools();
      const second = pools();
      const valves = proxyValves.parse({ base_url: fake.url, api_key: 'sk' });
      await models(first, valves);
      await models(second, valves);
      const ports = fake.calls.length;
      await first.close();
      expect((await models(second, valves)).status).toBe(200);
      // The second instance's keep-alive connection was not closed by the first's close().
      const [before, after] = fake.calls.slice(ports - 1, ports + 1);
      expect(after?.remotePort).toBe(before?.remotePort);
    });
  });

  describe('through the server', () => {
    let runtime: TestRuntime;
    beforeAll(async () => {
      runtime = await createTestRuntime({
        filters: ['openai-proxy.ts'],
        sources: {
          'second-proxy.ts': `import { createOpenAIProxy } from ${JSON.stringify(`${SDK_SPECIFIER}/shipped`)};\nexport default createOpenAIProxy();\n`,
        },
      });
      for (const id of ['openai-proxy', 'second-proxy'])
        await request(runtime.app)
          .post(`/${id}/valves/update`)
          .set(runtime.auth)
          .send({ base_url: fake.url, api_key: 'sk' })
          .expect(200);
    });
    afterAll(async () => runtime.dispose());

    const chat = async (pipeId: string) => {
      const response = await request(runtime.app)
        .post('/v1/chat/completions')
        .set(runtime.auth)
        .send({ model: `${pipeId}.gpt-4o-mini`, stream: false, user, messages: [{ role: 'user', content: 'hi' }] });
      return response.status === 200 ? 200 : `${response.status} ${JSON.stringify(response.body)}`;
    };

    it('POST /pipelines/reload while chats flow: every chat during and after it answers 200', async () => {
      expect(await chat('openai-proxy')).toBe(200);
      let reloading = true;
      const reload = request(runtime.app)
        .post('/pipelines/reload')
        .set(runtime.auth)
        .then((response) => {
          reloading = false;
          return response.status;
        });
      const during: Array<number | string> = [];
      while (reloading) during.push(await chat('openai-proxy'));
      expect(await reload).toBe(200);
      expect(during.length).toBeGreaterThan(0);
      expect(new Set(during)).toEqual(new Set([200]));
      expect([await chat('openai-proxy'), await chat('second-proxy')]).toEqual([200, 200]);
    });

    it('two proxy files: removing one leaves the other answering', async () => {
      expect([await chat('openai-proxy'), await chat('second-proxy')]).toEqual([200, 200]);
      const file = path.join(runtime.filtersDir, 'second-proxy.ts');
      rmSync(file);
      await runtime.registry.reloadFile(file);
      expect([await chat('openai-proxy'), await chat('openai-proxy')]).toEqual([200, 200]);
    });
  });
});
