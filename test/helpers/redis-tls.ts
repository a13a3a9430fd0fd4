import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../bench/lib/free-port.js';
import { redisServerBinary } from './redis-server.js';
import { tempDir } from './temp-store.js';
import { waitFor } from './wait-for.js';

/** A redis-server that only speaks TLS (port 0, tls-port set) with a password, and the CA that signed its cert. */
export interface TlsRedis {
  port: number;
  /** PEM file of the throwaway CA. */
  caFile: string;
  stop(): Promise<void>;
}

/** True when redis-server and openssl are installed; under CI a missing one throws instead. */
export function canStartTlsRedis(): boolean {
  const openssl = spawnSync('sh', ['-c', 'command -v openssl'], { encoding: 'utf8' }).status === 0;
  if (redisServerBinary() && openssl) return true;
  if (process.env.CI) throw new Error('redis-server and openssl are needed for the Redis TLS tests under CI');
  console.warn('[state] Redis TLS tests skipped: redis-server or openssl is not installed');
  return false;
}

function openssl(args: string[], cwd: string): void {
  const run = spawnSync('openssl', args, { cwd, encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr}`);
}

/**
 * Generate a throwaway CA and a server certificate for 127.0.0.1 (EC P-256, one day) in a temp folder, and start
 * `redis-server --port 0 --tls-port P … --requirepass password` on a free port. `stop` kills it and removes the folder.
 */
export async function startTlsRedis(password: string): Promise<TlsRedis> {
  const { dir, remove } = tempDir('eunoe-tls-');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=eunoe-test-ca'],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'], dir);
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      'san.ext',
      '-out',
      'server.crt',
    ],
    dir,
  );
  const port = await freePort();
  const child = spawn(
    redisServerBinary() as string,
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      'server.crt',
      '--tls-key-file',
      'server.key',
      '--tls-ca-cert-file',
      'ca.crt',
      '--tls-auth-clients',
      'no',
      '--requirepass',
      password,
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const stop = async () => {
    process.off('exit', kill);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      kill();
      await exited;
    }
    remove();
  };
  try {
    // Ready when the TLS port accepts a connection (a TCP connect; the handshake is the store's to make).
    await waitFor(async () => child.exitCode !== null || (await accepts(port)), { timeoutMs: 20_000, intervalMs: 50 });
    if (child.exitCode !== null) throw new Error(`redis-server with TLS on ${port} exited at start`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, caFile: path.join(dir, 'ca.crt'), stop };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
