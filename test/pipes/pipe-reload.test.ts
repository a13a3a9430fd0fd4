import { writeFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { pipeSource } from './helpers/pipe-source.js';
import { sseContent } from './helpers/sse.js';

/** A user-written pipe file through the default loader (import checked in a worker, run in the main thread), edited live. */
describe('pipe files: default isolation and hot reload', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      watch: true,
      // The production placement (the test default is main-thread filters): the import check in a worker is the subject.
      env: { FILTER_ISOLATION: 'auto' },
      sources: { 'mine.ts': pipeSource(`export default definePipe({ name: 'Mine', pipe: () => 'sync v1' });`) },
    });
  });
  afterAll(async () => runtime.dispose());

  const ask = (stream: boolean) =>
    request(runtime.app)
      .post('/chat/completions')
      .set(runtime.auth)
      .send({ model: 'mine', stream, messages: [{ role: 'user', content: 'hi' }] });

  it('loads a non-shipped pipe (probed in a worker) and runs it in the main thread', async () => {
    const pipelines = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(pipelines.body.data).toEqual([expect.objectContaining({ id: 'mine', type: 'pipe', isolation: 'main' })]);
    expect((await ask(false).expect(200)).body.choices[0].message.content).toBe('sync v1');
  });

  it('an edit to an async generator applies without a restart', async () => {
    writeFileSync(
      path.join(runtime.filtersDir, 'mine.ts'),
      pipeSource(`export default definePipe({ name: 'Mine', async *pipe() { yield 'gen '; yield 'v2'; } });`),
    );
    await waitFor(async () => (await ask(false)).body?.choices?.[0]?.message?.content, {
      until: (content) => content === 'gen v2',
      timeoutMs: 20_000,
    });
    expect(sseContent((await ask(true).expect(200)).text)).toBe('gen v2');
  });

  it('a broken edit keeps the last good version serving, listed with its load error; a fix brings it in as async', async () => {
    const file = path.join(runtime.filtersDir, 'mine.ts');
    writeFileSync(file, pipeSource(`export default definePipe({ name: 'Mine' });`));
    const listed = await waitFor(
      async () => (await request(runtime.app).get('/pipelines').set(runtime.auth)).body.data,
      {
        until: (data: Array<{ status: string; load_error?: { error: string } }>) => data[0]?.load_error !== undefined,
        timeoutMs: 20_000,
      },
    );
    expect(listed[0]).toMatchObject({ status: 'loaded', load_error: { error: expect.stringMatching(/pipe/) } });
    expect((await ask(false).expect(200)).body.choices[0].message.content).toBe('gen v2');
    writeFileSync(file, pipeSource(`export default definePipe({ name: 'Mine', pipe: async () => 'async v3' });`));
    await waitFor(async () => (await ask(false)).body?.choices?.[0]?.message?.content, {
      until: (content) => content === 'async v3',
      timeoutMs: 20_000,
    });
    unlinkSync(file);
    await waitFor(async () => (await ask(false)).status, { until: (status) => status === 404, timeoutMs: 20_000 });
  });
});
