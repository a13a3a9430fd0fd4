import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serveRuntime } from './serve-runtime.js';
import { loadConfig } from '../../src/core/config.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { silentLogger } from '../../src/core/util/logger.js';

const SDK = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../src/sdk.js');

/** A small filter: reads a valve, puts a prefix in front of the system prompt, returns the body. */
export const SMALL_FILTER = `import { baseValves, defineFilter, z } from ${JSON.stringify(SDK)};
export default defineFilter({
  valves: baseValves.extend({ prefix: z.string().default('Be brief.') }),
  inlet({ body, valves }) {
    const messages = Array.isArray(body.messages) ? [...body.messages] : [];
    if (messages[0]?.role === 'system') messages[0] = { ...messages[0], content: valves.prefix + ' ' + messages[0].content };
    else messages.unshift({ role: 'system', content: valves.prefix });
    return { ...body, messages };
  },
});
`;

/** The real runtime with SMALL_FILTER as `small`, listening on loopback, with `FILTER_ISOLATION` = `isolation`. */
export interface IsolationTarget {
  runtime: Runtime;
  post(payload: string): Promise<number>;
  close(): Promise<void>;
}

export async function startIsolationTarget(isolation: 'off' | 'worker'): Promise<IsolationTarget> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eunoe-bench-isolation-'));
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
  mkdirSync(path.join(dir, 'filters'));
  writeFileSync(path.join(dir, 'filters', 'small.ts'), SMALL_FILTER);
  const config = loadConfig(
    {
      PIPELINES_API_KEY: 'bench',
      PRICING_FETCH: 'false',
      WATCH_FILTERS: 'false',
      LOG_LEVEL: 'silent',
      FILTER_ISOLATION: isolation,
      SHIPPED_FILTERS: 'none',
    },
    dir,
  );
  const runtime = await createRuntime({ config, logger: silentLogger(), watch: false });
  const served = await serveRuntime(runtime, 'bench', dir);
  return {
    runtime,
    post: async (payload) => (await served.client.post('/small/filter/inlet', payload)).status,
    close: () => served.close(),
  };
}
