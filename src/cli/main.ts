// The `eunoe` program (started by bin/eunoe.mjs under tsx): runs the CLI on this process's arguments.
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
process.exitCode = code;
