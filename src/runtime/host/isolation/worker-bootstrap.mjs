// Entry of a filter worker thread. Compiled (dist/), the worker loop is JavaScript and imports as is; filter files
// get their hooks (`eunoe` from any folder, tsx for `.ts`) when the loop imports one (sdk-resolution.ts). Started
// from the TypeScript source (vitest, `npm run dev`), the loop runs compiled all the same when dist/ was built from
// exactly these sources; otherwise under tsx. Plain JS: nothing compiles TypeScript yet here.
import { importThreadEntry } from '../../../core/util/compiled-twin.mjs';

await importThreadEntry(new URL('./worker-main.ts', import.meta.url));
