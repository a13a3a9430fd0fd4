import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, redisAnswers, redisServerBinary, type OwnedRedis } from '../../helpers/redis-server.js';

/**
 * Like startOwnedRedis(), but with an append-only file fsynced on every write in `dir`,
 * so an acknowledged write survives `stop()` (SIGKILL, a crash) and `start()` on the same
 * port. The ledger fault test needs this: with startOwnedRedis()'s non-persistent server,
 * writes Redis acknowledged just before the kill would be lost by Redis itself, and
 * "every accepted write arrived exactly once" could not be checked. Never touches 6379.
 */
export async function startPersistentRedis(dir: string): Promise<OwnedRedis> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const port = await freePort();
  let child: ChildProcess | undefined;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir];
  const owned: OwnedRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      child = spawn(binary, [...args, '--appendonly', 'yes', '--appendfsync', 'always'], { stdio: 'ignore', cwd: dir });
      for (let attempt = 0; attempt < 200; attempt++) {
        if (await redisAnswers('127.0.0.1', port, 200)) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`redis-server did not answer on port ${port}`);
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
