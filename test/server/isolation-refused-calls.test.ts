import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_SPECIFIER } from '../helpers/create-test-runtime.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { postInlet } from './helpers/http.js';

const KEY = 'refused-calls-key';
const auth = { Authorization: `Bearer ${KEY}` };

/** Calls what the body names, with the process object a filter would use (global and `node:process`). */
const killer = `import { defineFilter } from '${SDK_SPECIFIER}';
import nodeProcess from 'node:process';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import inspector from 'node:inspector';
import { Session as PromiseSession } from 'node:inspector/promises';
import { setFlagsFromString } from 'node:v8';
export default defineFilter({
  id: 'killer',
  inlet({ body }) {
    switch (body.call) {
      case 'kill-self': process.kill(process.pid, 'SIGKILL'); break;
      case 'kill-self-term': nodeProcess.kill(nodeProcess.pid, 'SIGTERM'); break;
      case 'kill-parent': process.kill(process.ppid, 'SIGKILL'); break;
      case 'raw-kill': process._kill(process.pid, 9); break;
      case 'abort': process.abort(); break;
      case 'exit': process.exit(1); break;
      case 'really-exit': process.reallyExit(1); break;
      case 'dlopen': process.dlopen({ exports: {} }, '/nonexistent/addon.node'); break;
      case 'native-addon': createRequire(import.meta.url)(body.addon); break;
      case 'binding': process.binding('fs'); break;
      case 'worker': new Worker('process.kill(process.pid, "SIGKILL")', { eval: true }); break;
      case 'inspector-main': new inspector.Session().connectToMainThread(); break;
      case 'inspector-promises-main': new PromiseSession().connectToMainThread(); break;
      case 'inspector-open': inspector.open(0); break;
      case 'v8-flags': setFlagsFromString('--stack-size=100000'); break;
      case 'redefine': Object.defineProperty(process, 'kill', { value: () => 1 }); break;
      case 'probe': return { ...body, alive: process.kill(process.pid, 0) };
    }
    return body;
  },
});
`;
/** Tries to end the process while it is imported. */
const importKiller = `import { defineFilter } from '${SDK_SPECIFIER}';
process.kill(process.pid, 'SIGKILL');
export default defineFilter({ inlet: ({ body }) => body });
`;

/**
 * A filter in a worker thread cannot end the server with the calls that end or signal a process: a real server
 * process keeps answering, and each refused call fails the hook with an error naming the filter and the call.
 */
describe('process-ending calls are refused to filters in worker threads', () => {
  let root: string;
  let server: ServerProcess;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-refused-'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(path.join(root, 'filters', 'killer.ts'), killer);
    writeFileSync(path.join(root, 'filters', 'import-killer.ts'), importKiller);
    // Not a real addon: what matters is that loading it goes through process.dlopen, refused before it reads the file.
    writeFileSync(path.join(root, 'addon.node'), 'not an addon');
    server = await startServerProcess({
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: path.join(root, 'filters'),
      DATA_DIR: path.join(root, 'data'),
      FILTER_ISOLATION: 'worker',
      WATCH_FILTERS: 'false',
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const alive = async () => (await fetch(`${server.url}/`)).status;

  it.each([
    ['kill-self', /process\.kill\(\d+, "SIGKILL"\)/],
    ['kill-self-term', /process\.kill\(\d+, "SIGTERM"\)/],
    ['kill-parent', /process\.kill\(\d+, "SIGKILL"\)/],
    ['raw-kill', /process\._kill\(\)/],
    ['abort', /process\.abort\(\)/],
    ['exit', /process\.exit\(\)/],
    ['really-exit', /process\.reallyExit\(\)/],
    ['dlopen', /process\.dlopen\(\)/],
    ['native-addon', /process\.dlopen\(\)/],
    ['binding', /process\.binding\(\)/],
    ['worker', /new Worker\(\)/],
    ['inspector-main', /inspector Session\.connectToMainThread\(\)/],
    ['inspector-promises-main', /inspector Session\.connectToMainThread\(\)/],
    ['inspector-open', /inspector\.open\(\)/],
    ['v8-flags', /v8\.setFlagsFromString\(\)/],
    ['redefine', /Cannot redefine property: kill/],
  ])(
    '%s: the hook fails with a 500 naming the filter and the call; the server keeps answering',
    async (call, named) => {
      const response = await postInlet(server, KEY, 'killer', { call, addon: path.join(root, 'addon.node') });
      expect(response.status).toBe(500);
      const { detail } = (await response.json()) as { detail: string };
      expect(detail).toMatch(named);
      if (call !== 'redefine')
        expect(detail).toMatch(
          /^Filter killer \w+ failed: Filter killer called .* which filters in worker threads may not use/,
        );
      expect(await alive()).toBe(200);
      // The same worker serves the next call (nothing ended it).
      expect((await postInlet(server, KEY, 'killer', { call: 'none' })).status).toBe(200);
    },
  );

  it('process.kill(pid, 0) (does the process exist?) sends no signal and stays allowed', async () => {
    const response = await postInlet(server, KEY, 'killer', { call: 'probe' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { alive: boolean }).alive).toBe(true);
  });

  it('a file that kills its process while it is imported is listed failed, naming the file and the call', async () => {
    const list = (
      (await (await fetch(`${server.url}/pipelines`, { headers: auth })).json()) as {
        data: Array<Record<string, unknown>>;
      }
    ).data;
    expect(list.find((entry) => entry.id === 'import-killer')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/Filter import-killer\.ts called process\.kill\(\d+, "SIGKILL"\)/),
    });
    expect(list.find((entry) => entry.id === 'killer')).toMatchObject({ status: 'loaded', isolation: 'worker' });
    expect(await alive()).toBe(200);
  });
});
