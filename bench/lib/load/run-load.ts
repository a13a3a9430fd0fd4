import { quantile } from '../metrics.js';

/** One HTTP request of a load phase. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

/** What a load phase measured. */
export interface LoadResult {
  requests: number;
  errors: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * `concurrency` clients, each sending its next request as soon as the previous one is
 * answered, until `durationMs` has passed or `maxRequests` were sent (requests in flight
 * then finish). Any status but `okStatus` counts as an error.
 */
export async function runLoad(options: {
  url: string;
  apiKey: string;
  concurrency: number;
  durationMs: number;
  maxRequests: number;
  next: (index: number) => LoadRequest;
  okStatus?: number;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let sent = 0;
  let errors = 0;
  const start = performance.now();
  const stopAt = start + options.durationMs;
  const client = async () => {
    while (performance.now() < stopAt && sent < options.maxRequests) {
      const request = options.next(sent++);
      const begin = performance.now();
      try {
        const response = await fetch(`${options.url}${request.path}`, {
          method: request.method,
          headers: { Authorization: `Bearer ${options.apiKey}`, 'Content-Type': 'application/json' },
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
        });
        await response.arrayBuffer();
        if (response.status !== (options.okStatus ?? 200)) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - begin);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const seconds = (performance.now() - start) / 1000;
  return {
    requests: latencies.length,
    errors,
    perSecond: latencies.length / seconds,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: latencies.reduce((max, value) => Math.max(max, value), 0),
  };
}

/**
 * Start probe-root.ts in its own process against `url`; resolves once it is warmed up and measuring, with a
 * promise of its latencies of `GET /` over the next `durationMs`, or until `stop()` when no duration is given.
 */
export async function startProbe(
  url: string,
  durationMs?: number,
): Promise<{ result: Promise<LoadResult>; stop: () => void }> {
  const { spawn } = await import('node:child_process');
  const file = new URL('./probe-root.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', file, url, String(durationMs ?? 'until-stopped')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (output.includes('ready\n')) markReady();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await Promise.race([ready, exited]);
  const started = performance.now();
  const result = exited.then((code) => {
    if (code !== 0) throw new Error(`GET / probe exited with ${code}`);
    const parsed = JSON.parse(output.slice(output.indexOf('ready\n') + 6)) as Omit<LoadResult, 'perSecond'>;
    const seconds = (durationMs ?? performance.now() - started) / 1000;
    return { ...parsed, perSecond: parsed.requests / seconds };
  });
  return { result, stop: () => child.stdin.end('stop\n') };
}
