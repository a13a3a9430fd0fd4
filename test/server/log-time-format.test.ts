import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serverEnv } from '../../bench/lib/server-env.js';
import { freePort } from '../helpers/redis-server.js';
import { repoRoot } from '../helpers/create-test-runtime.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * `npm start` writes the supervisor's lines and the server's into one stream: their `time` is in one format, an ISO
 * string (a real supervisor and server process, their real output).
 */
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A pretty line's time and message: `2026-12-01T05:49:00.123Z INFO  server started child=…`. */
function prettyHead(line: string): { time: string; msg: string } {
  const [time = '', , ...rest] = line.split(/ +/);
  return { time, msg: rest.join(' ') };
}

describe('log lines of the supervisor and the server', () => {
  it.each(['json', 'pretty'])('carry the time in the same ISO format (LOG_FORMAT=%s)', async (format) => {
    const { dir, remove } = tempDir('eunoe-log-time-');
    cleanups.push(remove);
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, [path.join(repoRoot, 'dist/supervisor/main.js')], {
      cwd: repoRoot,
      env: serverEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        PIPELINES_API_KEY: 'k',
        LOG_LEVEL: 'info',
        LOG_FORMAT: format,
        PRICING_FETCH: 'false',
        SHIPPED_FILTERS: 'none',
        DATA_DIR: path.join(dir, 'data'),
        VALVES_DIR: path.join(dir, 'valves'),
        FILTERS_DIR: path.join(dir, 'filters'),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    });
    // JSON lines as they are; pretty lines back to their head: `<time> <LEVEL> <msg> … service=…` has no service
    // field (it is in the head), so pretty lines are told apart by their message.
    const lines = () =>
      output
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => (format === 'json' ? (JSON.parse(line) as { time?: unknown; msg?: string }) : prettyHead(line)));
    const supervisorLine = (line: { msg?: string }) => line.msg?.startsWith('server started') === true;
    const serverLine = (line: { msg?: string }) => typeof line.msg === 'string' && /listening/i.test(line.msg);
    // A liveness bound for a server start on a busy machine.
    await waitFor(lines, { until: (found) => found.some(supervisorLine) && found.some(serverLine), timeoutMs: 60_000 });
    child.kill('SIGTERM');
    await exited;
    const found = lines();
    expect(found.filter((line) => !(typeof line.time === 'string' && ISO.test(line.time)))).toEqual([]);
  });
});
