// Entry of a filter worker thread: register tsx (so .ts filters and the SDK import as in the
// main thread), then run the worker loop. Plain JS because nothing compiles TypeScript yet here.
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
