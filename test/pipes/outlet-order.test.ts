import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { pipeSource } from './helpers/pipe-source.js';
import { listen, postStream, sseContent } from './helpers/sse.js';

/** A filter at `priority` whose outlet maps the reply's text. */
const outletFilter = (priority: number, map: string) =>
  pipeSource(`export default defineFilter({
  valves: baseValves.extend({ pipelines: z.array(z.string()).default(['*']), priority: z.number().int().default(${priority}) }),
  outlet: ({ body }) => ({
    ...body,
    messages: body.messages.map((message, index) =>
      index === body.messages.length - 1 ? { ...message, content: (${map})(message.content) } : message),
  }),
});`);

const sources: Record<string, string> = {
  'words.ts': pipeSource(`export default definePipe({
  async *pipe() { yield 'one '; yield 'two '; yield 'three'; },
});`),
  // Priority order: the note (1), the rewrite (5), the accounting filter's usage line (100).
  'note.ts': outletFilter(1, `(text) => text + '\\n\\nnote'`),
  'shout.ts': outletFilter(5, `(text) => text.toUpperCase()`),
};

/**
 * Outlets of a pipe's reply run by priority, each on the reply the previous ones left; what each appended is
 * sent in that order. A rewrite (the client already has the reply) no longer swallows the lines appended after it.
 */
describe('outlet order on a pipe reply', () => {
  let runtime: TestRuntime;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['accounting.ts'], sources });
    mkdirSync(runtime.config.VALVES_DIR, { recursive: true });
    server = await listen(runtime.app);
    const shown = await fetch(`${server.url}/accounting/valves/update`, {
      method: 'POST',
      headers: { ...runtime.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ show_usage: true }),
    });
    expect(shown.status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await runtime.dispose();
  });

  it('a rewrite between the note and the usage line: the reply, the note, then the usage line', async () => {
    const { status, text } = await postStream(
      `${server.url}/chat/completions`,
      { model: 'words', stream: true, messages: [{ role: 'user', content: 'count to three' }] },
      runtime.auth,
      () => false,
    );
    expect(status).toBe(200);
    expect(sseContent(text)).toMatch(/^one two three\n\nnote\n\n\*~\d+ in · ~\d+ out( · ~\$[\d.]+)?\*$/);
  });

  it('without the rewrite, the same lines in the same order', async () => {
    writeFileSync(path.join(runtime.filtersDir, 'shout.ts'), outletFilter(5, '(text) => text'));
    await fetch(`${server.url}/pipelines/reload`, { method: 'POST', headers: runtime.auth });
    const { text } = await postStream(
      `${server.url}/chat/completions`,
      { model: 'words', stream: true, messages: [{ role: 'user', content: 'count to three' }] },
      runtime.auth,
      () => false,
    );
    expect(sseContent(text)).toMatch(/^one two three\n\nnote\n\n\*~\d+ in · ~\d+ out( · ~\$[\d.]+)?\*$/);
  });
});
