/**
 * Child process of bench:load's huge-message scenario: `GET /` one request at a time (2 ms apart) from when it
 * prints `ready` until a line arrives on its stdin, then prints `{"requests", "p50Ms", "maxMs", "errors"}`. Its own
 * process, so the parent's work (building and sending 20 MB) never delays the probe's own clock.
 * Usage: node --import tsx probe-while.ts <base url>
 */
import { quantile } from '../metrics.js';

const [url] = process.argv.slice(2);
for (let warm = 0; warm < 5; warm++) await (await fetch(`${url}/`)).arrayBuffer(); // first fetch loads undici
let running = true;
process.stdin.once('data', () => (running = false));
process.stdout.write('ready\n');
const latencies: number[] = [];
let errors = 0;
while (running && latencies.length < 100_000) {
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
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    p50Ms: quantile(latencies, 0.5),
    maxMs: Math.max(...latencies),
    errors,
  }),
);
process.exit(0);
