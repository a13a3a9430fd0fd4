import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { sdkImport } from './helpers/filter-source.js';
import { waitFor } from '../helpers/wait-for.js';

/** A hook that waits (up to 10 s) and records in `logFile` why its signal was aborted. */
const waiting = (logFile: string) => `import { appendFileSync } from 'node:fs';
${sdkImport}
export default defineFilter({
  inlet: ({ body, signal }) => new Promise((resolve) => {
    const timer = setTimeout(() => resolve(body), 10000);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      appendFileSync(${JSON.stringify(logFile)}, 'aborted: ' + String(signal.reason?.message ?? signal.reason) + '\\n');
      resolve(body);
    });
  }),
});
`;

describe('the hook signal', () => {
  let runtime: TestRuntime;
  let logFile: string;
  beforeAll(async () => {
    const probe = await createTestRuntime();
    logFile = path.join(probe.root, 'abort.log');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(probe.filtersDir, 'waiting.ts'), waiting(logFile));
    runtime = await probe.restart();
  });
  afterAll(async () => runtime.dispose());

  it('is aborted when the client goes away', async () => {
    await expect(
      request(runtime.app)
        .post('/waiting/filter/inlet')
        .set(runtime.auth)
        .send({ body: { model: 'm' } })
        .timeout(1000),
    ).rejects.toThrow();
    const log = await waitFor(async () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''), {
      until: (text) => text.includes('aborted'),
    });
    expect(log).toMatch(/aborted: .*closed/);
  });
});
