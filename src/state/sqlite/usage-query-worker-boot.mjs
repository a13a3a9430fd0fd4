// Entry of the usage query thread. Compiled (dist/), its code is JavaScript and imports as is; from the TypeScript
// source, worker threads do not inherit `--import tsx` on Node 20: register tsx here, then load the TypeScript worker.
import { existsSync } from 'node:fs';

const compiled = new URL('./usage-query-worker.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./usage-query-worker.ts');
}
