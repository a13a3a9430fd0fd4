#!/usr/bin/env node
// Launcher: compiles src/ to dist/ when the sources changed (scripts/build.mjs), then runs the CLI in a child
// process, resolving everything from this file's repo, so it works from any working directory; the child's exit
// code is passed through.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from '../scripts/build.mjs';

await build({ quiet: true });
const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const child = spawn(process.execPath, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
child.on('error', (error) => {
  console.error(`eunoe: cannot start the CLI: ${error.message}`);
  process.exit(1);
});
