import net from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/runtime/host/address-class.js';
import { downloadFilter } from '../../src/runtime/host/download-filter.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-server.js';
import { noopFilter } from './helpers/filter-source.js';

const SECRET = 'SECRET_7f3a9c';

/**
 * Address classes of literals (no connection is made): the ranges of RFC 6890's special-purpose registries (IPv4 and
 * IPv6), RFC 1918, RFC 6598 (CGNAT), RFC 3927 (169.254/16, where cloud metadata answers), RFC 4193 (fc00::/7),
 * RFC 4291 (fe80::/10, ::ffff:0:0/96), RFC 6052 (64:ff9b::/96), RFC 3056 (2002::/16).
 */
describe('the address classifier (pure: nothing is connected to)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['not-an-ip', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['2606:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

/** A loopback server: a filter at /f.ts, a redirect, and answers carrying a secret the errors must not echo. */
async function fileServer(): Promise<LoopbackHttp & { hits: string[] }> {
  const hits: string[] = [];
  const server = await listenOnLoopback((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/f.ts') res.end(noopFilter({ name: 'Fetched' }));
    else if (req.url === '/syntax.ts') res.end(`const token = 1 ${SECRET};\nexport default {};\n`);
    else if (req.url === '/throws.ts') res.end(`throw new Error('${SECRET}');\n`);
    else if (req.url === '/status.ts') res.writeHead(500).end(SECRET);
    else if (req.url?.startsWith('/to-127-0-0-2/'))
      res.writeHead(302, { Location: `http://127.0.0.2:${server.port}/f.ts` }).end();
    else res.writeHead(404).end(SECRET);
  });
  return Object.assign(server, { hits });
}

describe('POST /pipelines/add refuses loopback and private targets by default', () => {
  let runtime: TestRuntime;
  let files: Awaited<ReturnType<typeof fileServer>>;
  let closedPort: number;
  beforeAll(async () => {
    [runtime, files] = await Promise.all([createTestRuntime({}), fileServer()]);
    // A port nothing listens on (taken, then released).
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterAll(async () => {
    await Promise.all([runtime?.dispose(), files?.close()]);
  });

  const add = (url: string) => request(runtime.app).post('/pipelines/add').set(runtime.auth).send({ url });

  it.each([
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/f.ts`, 'it is a loopback address'],
    [
      'localhost (a name: every address it resolves to is checked)',
      (port: number) => `http://localhost:${port}/f.ts`,
      'it resolves to .*, a loopback address',
    ],
    ['[::1]', (port: number) => `http://[::1]:${port}/f.ts`, 'it is a loopback address'],
    ['[::ffff:127.0.0.1]', (port: number) => `http://[::ffff:127.0.0.1]:${port}/f.ts`, 'it is a loopback address'],
    ['0.0.0.0', (port: number) => `http://0.0.0.0:${port}/f.ts`, 'it is an unspecified address'],
  ])('%s: 400 naming the setting, and the server is never contacted', async (_name, url, why) => {
    const before = files.hits.length;
    const response = await add(url(files.port));
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(
      new RegExp(`^Refused to download from .*: ${why}\\. .*ADD_URL_ALLOW_PRIVATE=true`),
    );
    expect(files.hits.length).toBe(before);
    expect((await request(runtime.app).get('/pipelines').set(runtime.auth)).body.data).toEqual([]);
  });

  it('an open port and a closed one answer the same: nothing tells which ports are open', async () => {
    const open = await add(`http://127.0.0.1:${files.port}/f.ts`);
    const closed = await add(`http://127.0.0.1:${closedPort}/f.ts`);
    expect({ status: closed.status, detail: closed.body.detail }).toEqual({
      status: open.status,
      detail: open.body.detail,
    });
  });
});

describe('POST /pipelines/add with ADD_URL_ALLOW_PRIVATE=true', () => {
  let runtime: TestRuntime;
  let files: Awaited<ReturnType<typeof fileServer>>;
  let nonHttp: net.Server;
  const sockets = new Set<net.Socket>();
  beforeAll(async () => {
    [runtime, files] = await Promise.all([createTestRuntime({ env: { ADD_URL_ALLOW_PRIVATE: 'true' } }), fileServer()]);
    // Not HTTP (a Redis-like line protocol) that answers with a secret.
    nonHttp = net.createServer((socket) => {
      sockets.add(socket);
      socket.end(`-ERR ${SECRET}\r\n`);
    });
    await new Promise<void>((resolve) => nonHttp.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all([runtime?.dispose(), files?.close(), new Promise((resolve) => nonHttp?.close(resolve))]);
  });

  const add = (url: string) => request(runtime.app).post('/pipelines/add').set(runtime.auth).send({ url });

  it('a loopback server is fetched and its filter installed', async () => {
    const response = await add(`http://127.0.0.1:${files.port}/f.ts`);
    expect(response.status).toBe(200);
    expect(response.body.detail).toMatch(/added successfully to f\.ts/);
  });

  it.each([
    [
      'a file with a syntax error',
      '/syntax.ts',
      /was rejected: it failed to load \(line 1\) \(the error is in the server log/,
    ],
    ['a file that throws at import', '/throws.ts', /was rejected: it failed to load/],
    ['an HTTP error', '/status.ts', /^Failed to download file: HTTP 500$/],
    ['a 404', '/missing.ts', /^Failed to download file: HTTP 404$/],
  ])('%s: 400 without any of what was fetched', async (_name, pathname, detail) => {
    const response = await add(`http://127.0.0.1:${files.port}${pathname}`);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(detail);
    expect(response.text).not.toContain(SECRET);
  });

  it('a server that does not speak HTTP: 400 without what it sent', async () => {
    const { port } = nonHttp.address() as net.AddressInfo;
    const response = await add(`http://127.0.0.1:${port}/x.ts`);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^Failed to download file: /);
    expect(response.text).not.toContain(SECRET);
  });
});

describe('every redirect is checked before it is followed', () => {
  let files: Awaited<ReturnType<typeof fileServer>>;
  beforeAll(async () => {
    files = await fileServer();
  });
  afterAll(async () => files?.close());

  it('a redirect to a refused address is not followed (a policy that allows 127.0.0.1 only)', async () => {
    const onlyFirstLoopback = (address: string) => (address === '127.0.0.1' ? undefined : 'not 127.0.0.1');
    const download = downloadFilter({
      url: new URL(`http://127.0.0.1:${files.port}/to-127-0-0-2/f.ts`),
      timeoutMs: 5000,
      maxBytes: 100_000,
      refuse: onlyFirstLoopback,
    });
    await expect(download).rejects.toThrow(/^Refused to download from 127\.0\.0\.2: it is not 127\.0\.0\.1\./);
    expect(files.hits).toEqual(['/to-127-0-0-2/f.ts']);
  });
});
