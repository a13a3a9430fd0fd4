import { fileURLToPath } from 'node:url';
import { Supervisor } from './supervisor.js';

/**
 * `npm start`: run the server (`node --import tsx src/main.ts`) under a supervisor that
 * restarts it with back-off when it dies (see src/supervisor/supervisor.ts).
 */
const server = fileURLToPath(new URL('../main.ts', import.meta.url));
const supervisor = new Supervisor({
  command: process.execPath,
  args: ['--import', import.meta.resolve('tsx'), server, ...process.argv.slice(2)],
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => supervisor.stop(signal));
supervisor.start();
process.exit(await supervisor.done);
