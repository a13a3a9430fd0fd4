import { afterEach, describe, expect, it } from 'vitest';
import { LlmClientPool } from '../../src/domain/llm/client-pool.js';
import { chatReply, startLoopback, type LoopbackServer } from './helpers/loopback-openai.js';

let server: LoopbackServer;
afterEach(async () => server?.close());

describe('LlmClientPool', () => {
  it('shares one client per configuration and lane; background calls do not take the inlet slots', async () => {
    server = await startLoopback(() => ({ ...chatReply('ok'), delayMs: 60 }));
    const pool = new LlmClientPool();
    const options = { baseUrl: server.url, model: 'mini', concurrency: 1 };
    const inlet = pool.get(options);
    expect(pool.get({ ...options })).toBe(inlet);
    expect(pool.get({ ...options, model: 'other' })).not.toBe(inlet);
    const background = pool.get(options, 'background');
    expect(background).not.toBe(inlet);
    const ask = (client: typeof inlet) => client.chat({ messages: [{ role: 'user', content: 'x' }] });
    await Promise.all([ask(background), ask(background), ask(inlet)]);
    expect(server.maxInFlight).toBe(2);
    await pool.close();
    expect(pool.get(options)).not.toBe(inlet);
    await pool.close();
  });
});
