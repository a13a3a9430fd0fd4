// Entry of the usage query thread: its compiled code (dist/, or the compiled twin of these sources when current),
// else its TypeScript source under tsx (see compiled-twin.mjs). Plain JS: nothing compiles TypeScript yet here.
import { importThreadEntry } from '../../core/util/compiled-twin.mjs';

await importThreadEntry(new URL('./usage-query-worker.ts', import.meta.url));
