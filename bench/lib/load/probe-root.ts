/**
 * Child process of bench:load: `GET /` one request at a time (2 ms apart) for a while, then prints
 * `{"requests", "p50Ms", "p99Ms", "maxMs", "errors"}`. Its own process, so the load clients' work (parsing big
 * /usage answers, building a 20 MB body) never delays the probe's own clock.
 * Usage: node --import tsx probe-root.ts <base url> <duration ms | until-stopped (until a line on stdin)>
 */
import { quantile } from '../metrics.js';

const [url, duration] = process.argv.slice(2);
for (let warm = 0; warm < 5; warm++) await (await fetch(`${url}/`)).arrayBuffer(); // first fetch loads undici: not the server's time
process.stdout.write('ready\n'); // the parent starts its load now, so both cover the same window
const stopAt = duration === 'until-stopped' ? Number.POSITIVE_INFINITY : performance.now() + Number(duration);
let running = true;
process.stdin.once('data', () => (running = false));
const latencies: number[] = [];
let errors = 0;
while (running && performance.now() < stopAt && latencies.length < 100_000) {
  const begin = performance.now();
  try {
    const response = await fetch(`${url}/`);
    await response.arrayBuffer();
    if (!response.ok) errors++;
  } catch {
    errors++;
  }
  latencies.push(performance.now() - begin);
  await new Promise((resolve) => setTimeout(resolve, 2));
}
process.stdin.destroy(); // nothing more to wait for: the process may end
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: Math.max(...latencies),
    errors,
  }),
);
