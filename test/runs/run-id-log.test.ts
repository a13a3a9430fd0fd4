import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverCaller } from '../helpers/server-calls.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * One run id everywhere: the `runId` of the context filter's log line for an inlet is the id GET /runs lists for it
 * and GET /runs/:id answers (a real server process, its real log).
 */
const KEY = 'run-id-log-key-0123456789';
const call = serverCaller(KEY);

describe('the run id of the log line', () => {
  let server: ServerProcess;
  let remove: () => void;
  beforeAll(async () => {
    const temp = tempDir('eunoe-run-id-');
    remove = temp.remove;
    server = await startServerProcess({
      DATA_DIR: path.join(temp.dir, 'data'),
      PIPELINES_API_KEY: KEY,
      SHIPPED_FILTERS: 'context',
      LOG_LEVEL: 'info',
    });
  });
  afterAll(async () => {
    await server?.stop();
    remove?.();
  });

  it('is the id GET /runs knows', async () => {
    const inlet = await call(server, 'POST', '/context/filter/inlet', {
      body: {
        model: 'gpt-4o',
        metadata: { chat_id: 'chat-run-id' },
        messages: [
          { role: 'user', content: 'My cat is called Miso.' },
          { role: 'assistant', content: 'Noted.' },
          { role: 'user', content: 'What is my cat called?' },
        ],
      },
      user: { id: 'u1', role: 'user' },
    });
    expect(inlet.status).toBe(200);
    // The log line may reach the output a moment after the answer (another pipe than the HTTP socket).
    const planned = await waitFor(() =>
      server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; runId?: string })
        .find((line) => line.msg === 'context planned'),
    );
    expect(planned?.runId).toBeDefined();
    const runs = await call(server, 'GET', '/runs?chat=chat-run-id');
    expect(runs.status).toBe(200);
    expect(runs.body.runs.map((run: { id: string }) => run.id)).toEqual([planned!.runId]);
    expect((await call(server, 'GET', `/runs/${planned!.runId}`)).status).toBe(200);
  });
});
