import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { createLogger } from '../../src/core/util/logger.js';
import { prettyLine } from '../../src/core/util/pretty-stream.js';
import { captureLogger } from '../state/helpers/capture-logger.js';
import { filterSource } from './helpers/filter-source.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KEY = 'access-log-key-1';
const auth = { Authorization: `Bearer ${KEY}` };

/** A filter that logs one line of its own from its inlet. */
const chatty = filterSource(`export default defineFilter({
  name: 'Chatty',
  valves: baseValves.extend({ pipelines: z.array(z.string()).default(['*']) }),
  inlet: ({ body, logger }) => {
    logger.info({ turns: body.messages.length }, 'chatty saw the chat');
    return body;
  },
});`);

describe('access log lines', () => {
  let root: string;
  let runtime: Runtime;
  const captured = captureLogger();
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-access-'));
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(root, 'filters', 'chatty.ts'), chatty);
    const config = loadConfig(
      {
        PIPELINES_API_KEY: KEY,
        WATCH_FILTERS: 'false',
        PRICING_FETCH: 'false',
        SHIPPED_FILTERS: 'none',
        FILTER_LOAD_TIMEOUT_MS: '60000',
      },
      root,
    );
    runtime = await createRuntime({ config, logger: captured.logger, watch: false });
  });
  afterAll(async () => {
    await runtime.close();
    rmSync(root, { recursive: true, force: true });
  });

  const requestLines = () => captured.lines.filter((line) => line.msg === 'request');

  it('a hook call’s access line carries the filter, user and chat ids (metadata.chat_id), with an ISO time', async () => {
    const response = await request(runtime.app)
      .post('/chatty/filter/inlet')
      .set(auth)
      .send({
        body: { model: 'm', messages: [{ role: 'user', content: 'hi' }], metadata: { chat_id: 'chat-9' } },
        user: { id: 'u-7', role: 'user' },
      })
      .expect(200);
    const line = requestLines().find((entry) => entry.reqId === response.headers['x-request-id']);
    expect(line).toMatchObject({
      filter: 'chatty',
      user: 'u-7',
      chat: 'chat-9',
      method: 'POST',
      path: '/chatty/filter/inlet',
      status: 200,
    });
    expect(line?.time).toMatch(ISO);
    // The filter's own line carries them too.
    const own = captured.lines.find((entry) => entry.msg === 'chatty saw the chat');
    expect(own).toMatchObject({ user: 'u-7', chat: 'chat-9', turns: 1 });
  });

  it('the chat id also comes from a top-level chat_id (outlet bodies); absent ids are left out', async () => {
    const response = await request(runtime.app)
      .post('/chatty/filter/outlet')
      .set(auth)
      .send({ body: { model: 'm', messages: [], chat_id: 'chat-top' } })
      .expect(200);
    const line = requestLines().find((entry) => entry.reqId === response.headers['x-request-id']);
    expect(line).toMatchObject({ filter: 'chatty', chat: 'chat-top', status: 200 });
    expect(line).not.toHaveProperty('user');
    const models = await request(runtime.app).get('/models').set(auth).expect(200);
    const plain = requestLines().find((entry) => entry.reqId === models.headers['x-request-id']);
    expect(plain).toMatchObject({ path: '/models', status: 200 });
    expect(plain).not.toHaveProperty('filter');
  });
});

describe('LOG_FORMAT=pretty', () => {
  it('writes human lines: ISO time, level, message, then key=value fields; secrets stay redacted', () => {
    const written: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        written.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'info', format: 'pretty', destination });
    logger.info({ reqId: 'r-1', user: 'u-7', chat: 'chat 9', status: 200, api_key: 'sk-secret' }, 'request');
    logger.debug('not at info');
    const lines = written.join('').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const [time, level, ...rest] = lines[0]!.split(' ');
    expect(time).toMatch(ISO);
    expect(level).toBe('INFO');
    expect(rest.join(' ')).toBe(' request reqId=r-1 user=u-7 chat="chat 9" status=200 api_key=[redacted]');
    expect(lines[0]).not.toContain('sk-secret');
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(prettyLine('plain text')).toBe('plain text');
  });

  it('the configuration accepts json and pretty only', () => {
    expect(loadConfig({}).LOG_FORMAT).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'fancy' })).toThrow(/LOG_FORMAT/);
  });
});
