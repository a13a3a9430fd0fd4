import request from 'supertest';
import { createTestRuntime, type TestRuntime } from '../../helpers/create-test-runtime.js';
import { startFakeOpenAI } from './fake-openai.js';

/** A runtime with the money filters and the openai-proxy pointed at a loopback OpenAI upstream. */
export interface ProxyMoneyRuntime {
  runtime: TestRuntime;
  fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  /** Saves a filter's admin valves (`POST /{id}/valves/update`). */
  update(id: string, values: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** The openai-proxy, accounting and spend-limit filters in the test's thread, the proxy's upstream a loopback fake. */
export async function proxyMoneyRuntime(): Promise<ProxyMoneyRuntime> {
  const fake = await startFakeOpenAI();
  const runtime = await createTestRuntime({
    filters: ['openai-proxy.ts', 'accounting.ts', 'spend-limit.ts'],
    env: { FILTER_ISOLATION: 'off' },
  });
  const update = (id: string, values: Record<string, unknown>) =>
    request(runtime.app).post(`/${id}/valves/update`).set(runtime.auth).send(values).expect(200);
  await update('openai-proxy', { base_url: fake.url, api_key: 'sk-upstream' });
  return {
    runtime,
    fake,
    update,
    async close() {
      await runtime.dispose();
      await fake.close();
    },
  };
}
