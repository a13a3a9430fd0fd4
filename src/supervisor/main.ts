import { fileURLToPath } from 'node:url';
import { Supervisor } from './supervisor.js';
import { watchParent } from './parent-watch.js';
import { RUNNING_COMPILED } from '../core/util/running-compiled.js';
import { prettyLine } from '../core/util/pretty-stream.js';

/**
 * `npm start`: run the server (`node dist/main.js`, compiled by scripts/build.mjs) under a supervisor that
 * restarts it with back-off when it dies (see src/supervisor/supervisor.ts), ends at once when the
 * server cannot start for a reason a restart does not fix, and ends with the process that started it.
 * Started from the TypeScript source (`node --import tsx src/supervisor/main.ts`), it runs `src/main.ts` under tsx.
 */
const server = fileURLToPath(new URL(RUNNING_COMPILED ? '../main.js' : '../main.ts', import.meta.url));
const supervisor = new Supervisor({
  command: process.execPath,
  args: [...(RUNNING_COMPILED ? [] : ['--import', import.meta.resolve('tsx')]), server, ...process.argv.slice(2)],
  // LOG_FORMAT=pretty: human lines like the server's, in the one stream they share.
  ...(process.env.LOG_FORMAT === 'pretty'
    ? { log: (line: string) => process.stderr.write(`${prettyLine(line)}\n`) }
    : {}),
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => supervisor.stop(signal));
// Killing npm (even with SIGKILL) must not leave the supervisor and the server running, orphaned.
watchParent(() => {
  supervisor.log(40, 'the process that started the supervisor is gone; stopping the server');
  supervisor.stop('SIGTERM');
});
supervisor.start();
process.exit(await supervisor.done);
