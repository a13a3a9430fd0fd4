import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveRuntime } from './serve-runtime.js';

/** A running Eunoe on 127.0.0.1 with a throwaway data directory. */
export interface HttpTarget {
  url: string;
  apiKey: string;
  /** POSTs a JSON payload with the Bearer key over a keep-alive connection; resolves to status and body text. */
  post(path: string, payload: string): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/**
 * Starts the real runtime (src/compose.ts, the repo's filters/) on an ephemeral port with
 * the context filter's admin valves set to `valves`. Returns a reason instead when the
 * server cannot be built (e.g. not written yet).
 */
export async function startHttpTarget(valves: Record<string, unknown>): Promise<HttpTarget | { reason: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eunoe-bench-'));
  try {
    const valvesDir = path.join(dir, 'valves');
    const dataDir = path.join(dir, 'data');
    mkdirSync(valvesDir, { recursive: true });
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(valvesDir, 'context.json'), JSON.stringify(valves));
    const apiKey = 'bench-key';
    const { loadConfig } = await import('../../src/core/config.js');
    const { createRuntime } = await import('../../src/compose.js');
    const { createLogger } = await import('../../src/core/util/logger.js');
    const config = loadConfig({
      PIPELINES_API_KEY: apiKey,
      DATA_DIR: dataDir,
      VALVES_DIR: valvesDir,
      FILTERS_DIR: fileURLToPath(new URL('../../filters', import.meta.url)),
      PRICING_FETCH: 'false',
      WATCH_FILTERS: 'false',
      LOG_LEVEL: 'silent',
    });
    const logger = createLogger({ level: 'silent' });
    const runtime = await createRuntime({ config, logger, watch: false });
    const served = await serveRuntime(runtime, apiKey, dir);
    // Filters load their tokenizers in the background on start-up (about a second of CPU): let that finish.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return {
      url: `http://127.0.0.1:${served.port}`,
      apiKey,
      post: (requestPath, payload) => served.client.post(requestPath, payload),
      close: () => served.close(),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: (error as Error).message.split('\n')[0] ?? 'unknown error' };
  }
}
