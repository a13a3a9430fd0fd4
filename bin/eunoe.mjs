#!/usr/bin/env node
// Launcher: runs the TypeScript CLI under tsx, resolving everything from this file's repo,
// so it works from any working directory; the child's exit code is passed through.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const tsx = import.meta.resolve('tsx');
const child = spawn(process.execPath, ['--import', tsx, main, ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
child.on('error', (error) => {
  console.error(`eunoe: cannot start the CLI: ${error.message}`);
  process.exit(1);
});
