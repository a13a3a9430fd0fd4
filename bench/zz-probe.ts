import { readFileSync } from 'node:fs';
import { startProbe } from './lib/load/run-load.js';
const [url, filter, file, rounds] = process.argv.slice(2);
const body = readFileSync(file!);
for (let round = 0; round < Number(rounds ?? 1); round++) {
  const probe = await startProbe(url!);
  const begin = performance.now();
  const response = await fetch(`${url}/${filter}/filter/inlet`, { method: 'POST', headers: { Authorization: 'Bearer k', 'Content-Type': 'application/json' }, body });
  await response.arrayBuffer();
  const ms = performance.now() - begin;
  probe.stop();
  const result = await probe.result;
  console.log(filter, response.status, `inlet ${ms.toFixed(0)} ms`, `GET / p50 ${result.p50Ms.toFixed(1)} max ${result.maxMs.toFixed(0)} ms n=${result.requests}`);
}
