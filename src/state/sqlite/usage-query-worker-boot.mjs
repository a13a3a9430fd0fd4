// Entry of the usage query thread. Compiled (dist/), its code is JavaScript and imports as is; from the TypeScript
// source it runs compiled all the same when dist/ was built from exactly these sources. Otherwise (worker threads do
// not inherit `--import tsx` on Node 20) tsx is registered here first to load the TypeScript worker.
import { existsSync } from 'node:fs';
import { compiledTwin } from '../../core/util/compiled-twin.mjs';

const compiled = new URL('./usage-query-worker.js', import.meta.url);
const twin = existsSync(compiled) ? compiled.href : compiledTwin(new URL('./usage-query-worker.ts', import.meta.url));
if (twin) {
  await import(twin);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./usage-query-worker.ts');
}
