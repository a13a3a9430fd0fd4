import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from '../../bench/lib/free-port.js';
import { waitFor } from './wait-for.js';

export { freePort };

/** True when something answers a Redis PING at host:port within `timeoutMs`. */
export function redisAnswers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export function redisServerBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** A redis-server child process the tests own (so fault tests can stop and restart it). */
export interface OwnedRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP the process: its connections stay open, nothing answers (a hung Redis). */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
}

/**
 * Start a throwaway redis-server on a free loopback port. Without `persistDir` it keeps
 * nothing on disk; with it, an append-only file fsynced on every write lives there, so an
 * acknowledged write survives `stop()` (SIGKILL) and `start()` on the same port (the ledger
 * fault test needs that to check "every accepted write arrived exactly once"). Never 6379.
 */
export async function startOwnedRedis(port?: number, options: { persistDir?: string } = {}): Promise<OwnedRedis> {
  // A free port can be taken by another test between the probe and redis-server's bind: then try another one.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOwnedRedisOn(port ?? (await freePort()), options);
    } catch (error) {
      if (port !== undefined || attempt >= 3 || !(error instanceof RedisExitedEarly)) throw error;
    }
  }
}

class RedisExitedEarly extends Error {}

async function startOwnedRedisOn(chosen: number, options: { persistDir?: string }): Promise<OwnedRedis> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const persistence = options.persistDir
    ? ['--dir', options.persistDir, '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  let child: ChildProcess | undefined;
  const owned: OwnedRedis = {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    async start() {
      const started = spawn(binary, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', ...persistence], {
        stdio: 'ignore',
        cwd: options.persistDir,
      });
      child = started;
      let exited = false;
      started.once('exit', () => {
        exited = true;
      });
      await waitFor(async () => exited || (await redisAnswers('127.0.0.1', chosen, 200)), { intervalMs: 25 }).catch(
        () => {
          throw new Error(`redis-server did not answer on port ${chosen}`);
        },
      );
      if (exited) throw new RedisExitedEarly(`redis-server exited at start on port ${chosen} (port taken?)`);
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
  };
  await owned.start();
  return owned;
}
