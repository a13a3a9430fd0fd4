// Entry of a filter worker thread. Compiled (dist/), the worker loop is JavaScript and imports as is; filter files
// get their hooks (`eunoe` from any folder, tsx for `.ts`) when the loop imports one (sdk-resolution.ts). Started
// from the TypeScript source (vitest, `npm run dev`), the loop runs compiled all the same when dist/ was built from
// exactly these sources; otherwise tsx is registered first to import the loop's TypeScript. Plain JS: nothing
// compiles TypeScript yet here.
import { existsSync } from 'node:fs';
import { compiledTwin } from '../../../core/util/compiled-twin.mjs';

const compiled = new URL('./worker-main.js', import.meta.url);
const twin = existsSync(compiled) ? compiled.href : compiledTwin(new URL('./worker-main.ts', import.meta.url));
if (twin) {
  await import(twin);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./worker-main.ts');
}
