// Entry of a filter worker thread. Compiled (dist/), the worker loop is JavaScript and imports as is; filter files
// get their hooks (`eunoe` from any folder, tsx for `.ts`) when the loop imports one (sdk-resolution.ts). From the
// TypeScript source, tsx must be registered first to import the loop itself. Plain JS: nothing compiles TypeScript yet.
import { existsSync } from 'node:fs';

const compiled = new URL('./worker-main.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./worker-main.ts');
}
