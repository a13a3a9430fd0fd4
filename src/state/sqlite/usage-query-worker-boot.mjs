// Worker threads do not inherit `--import tsx` on Node 20: register tsx here, then load the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./usage-query-worker.ts');
