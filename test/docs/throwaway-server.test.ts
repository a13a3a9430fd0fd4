import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/free-port.js';
import { repoRoot } from '../helpers/create-test-runtime.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The README's and CONTRIBUTING's "throw-away server" promise to leave nothing behind: started exactly as written
 * (the command read from the page, only its port changed), a valve saved through it lands in its own folder, and the
 * checkout's `valves/` and `data/` are as they were.
 */
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The shell command of the page's throw-away server: the first `PIPELINES_API_KEY=…` line after those words. */
function throwAwayCommand(page: string): string {
  const text = fs.readFileSync(path.join(repoRoot, page), 'utf8');
  const from = text.indexOf('throw-away server');
  expect(from, `${page} mentions a throw-away server`).toBeGreaterThanOrEqual(0);
  const command = /^`?([^`\n]*PIPELINES_API_KEY=k[^`\n]*npm run start:server)`?\.?$/m.exec(text.slice(from));
  expect(command, `${page} has the throw-away server's command`).not.toBeNull();
  return command![1]!.replace(/^\s*/, '');
}

/** Names and modification times of what a folder of the checkout holds (missing: empty). */
function snapshot(dir: string): Record<string, number> {
  if (!fs.existsSync(dir)) return {};
  return Object.fromEntries(fs.readdirSync(dir).map((name) => [name, fs.statSync(path.join(dir, name)).mtimeMs]));
}

/** Files under `dir`, recursively, relative to it. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => fs.statSync(path.join(dir, name)).isFile());
}

describe.each(['README.md', 'CONTRIBUTING.md'])('%s: the throw-away server', (page) => {
  it('started as written, it saves valves in its own folder and writes nothing into the checkout', async () => {
    const command = throwAwayCommand(page);
    const port = await freePort();
    const checkoutDirs = ['valves', 'data', 'pricing', 'filters'].map((name) => path.join(repoRoot, name));
    const before = checkoutDirs.map(snapshot);
    // Whatever a failing run writes into the checkout is taken out again.
    cleanups.push(() => {
      checkoutDirs.forEach((dir, index) => {
        for (const name of Object.keys(snapshot(dir)))
          if (!(name in before[index]!)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
      });
    });
    const { dir: tmp, remove } = tempDir('eunoe-throwaway-');
    cleanups.push(remove);
    // The shell a reader has: PATH and HOME, no server settings of the test's environment; mktemp -d under `tmp`.
    const child = spawn('bash', ['-c', command.replace('PORT=9400', `PORT=${port}`)], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: npm, sh and node stop together
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    cleanups.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(
      () =>
        fetch(`${url}/`).then(
          (response) => response.ok,
          () => child.exitCode !== null && Promise.reject(new Error(`the server exited:\n${output}`)),
        ),
      { timeoutMs: 60_000, intervalMs: 50 }, // a liveness bound for a server start on a busy machine
    );
    const saved = await fetch(`${url}/accounting/valves/update`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ show_usage: true }),
    });
    expect(saved.status, output).toBe(200);

    expect(checkoutDirs.map(snapshot), output).toEqual(before);
    expect(
      filesUnder(tmp).filter((name) => name.endsWith('accounting.json')),
      output,
    ).toHaveLength(1);
  }, 90_000);
});
