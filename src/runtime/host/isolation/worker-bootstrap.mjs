// Entry of a filter worker thread: register tsx (so .ts filters and the SDK import as in the
// main thread), then run the worker loop. Plain JS because nothing compiles TypeScript yet here.
import { register as registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';

register();
// `import … from 'eunoe'` resolves to this package from any folder (see ../sdk-resolve-hooks.mjs).
registerHooks('../sdk-resolve-hooks.mjs', import.meta.url);
await import('./worker-main.ts');
