import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run-cli.js';
import { createTestRuntime, repoRoot, type TestRuntime } from '../../helpers/create-test-runtime.js';
import { serverEnv } from '../../../bench/lib/server-env.js';

const SHIPPED = ['accounting.ts', 'context.ts', 'spend-limit.ts', 'system-prefix.ts', 'turn-limit.ts'];

function eunoe(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, 'bin/eunoe.mjs'), ...args],
      { env: serverEnv(env), timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npx eunoe function', () => {
  let runtime: TestRuntime;
  let dir: string;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: SHIPPED });
    dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-cli-'));
  });
  afterAll(async () => {
    await runtime.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the same file the server serves for the same filters, without starting a server', async () => {
    const env = { DATA_DIR: dir, FILTERS_DIR: path.join(dir, 'filters'), SHIPPED_FILTERS: 'all', LOG_LEVEL: 'silent' };
    const out = path.join(dir, 'eunoe_function.py');
    const cli = await eunoe(['function', '--url', 'http://eunoe:9099', '--out', out], env);
    expect(cli.code).toBe(0);
    expect(cli.stderr).toMatch(/wrote .*eunoe_function\.py \(5 filters\)/);
    const served = await request(runtime.app)
      .get('/integrations/open-webui/function.py?url=http://eunoe:9099')
      .set(runtime.auth)
      .expect(200);
    expect(readFileSync(out, 'utf8')).toBe(served.text);
    const toggled = await eunoe(['function', '--toggle'], env);
    expect(toggled.stdout).toContain('self.toggle = True');
    expect(toggled.stdout).toContain('default="http://localhost:9099"');
  });

  it('refuses a URL that is not http(s) and an unknown option, with exit code 2', async () => {
    const bad = await eunoe(['function', '--url', 'ftp://x'], { DATA_DIR: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--url must be an http\(s\) URL/);
    let stderr = '';
    const unknown = await runCli(['function', '--bogus'], { out: () => undefined, err: (text) => (stderr += text) });
    expect(unknown).toBe(2);
    expect(stderr).toMatch(/unknown option --bogus/);
  });
});
