import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

/** A redis-server process of a local topology. */
export interface RedisProcess {
  port: number;
  child: ChildProcess;
  /** kill -9; resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGSTOP: its connections stay open, nothing answers (a stalled node); `resume` sends SIGCONT. */
  pause(): void;
  resume(): void;
}

/** A local Cluster or Sentinel set-up: its processes, how to reach it, and how to stop all of it. */
export interface LocalTopology {
  /** The environment a replica needs (REDIS_CLUSTER_NODES, or REDIS_SENTINELS + REDIS_SENTINEL_NAME). */
  env: Record<string, string>;
  /** The data nodes (Cluster: the three primaries; Sentinel: the primary first, then the replica). */
  nodes: RedisProcess[];
  /** Sentinel: the three sentinels. */
  sentinels: RedisProcess[];
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
let hooked = false;

/** Every process started here dies with the process that started it, whatever way it ends. */
function killAllOnExit(): void {
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    for (const child of live) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      killAll();
      process.exit(130);
    });
}

/** One request/reply of an inline command to a node (after AUTH when `password`); the raw reply ('' on failure). */
export function redisCommand(port: number, command: string, timeoutMs = 1000, password?: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let text = '';
    const done = (reply: string) => {
      socket.destroy();
      resolve(reply);
    };
    socket.setTimeout(timeoutMs, () => done(''));
    socket.on('error', () => done(''));
    socket.on('connect', () => socket.write(`${password ? `AUTH ${password}\r\n` : ''}${command}\r\n`));
    socket.on('data', (data) => {
      text += data.toString();
      let reply = text;
      if (password) {
        if (text.startsWith('-')) return done(text); // AUTH refused
        if (!text.startsWith('+OK\r\n')) return; // AUTH's answer not complete yet
        reply = text.slice(5);
        if (reply.length === 0) return;
      }
      // Good enough for the replies asked here: a simple line, or a bulk string read whole.
      const bulk = /^\$(\d+)\r\n/.exec(reply);
      if (!bulk || reply.length >= bulk[0].length + Number(bulk[1]) + 2) done(reply);
    });
  });
}

/** Poll until `probe` is true; throws after `timeoutMs`. */
async function until(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function binary(name: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  if (found.status !== 0) throw new Error(`${name} is not installed (apt-get install redis-server redis-tools)`);
  return found.stdout.trim();
}

async function startProcess(args: string[], port: number, cwd: string): Promise<RedisProcess> {
  killAllOnExit();
  const child = spawn(binary('redis-server'), args, { stdio: 'ignore', cwd });
  live.add(child);
  child.once('exit', () => live.delete(child));
  await until(
    async () => child.exitCode !== null || /^(\+PONG|-NOAUTH)/.test(await redisCommand(port, 'PING', 200)),
    10_000,
    `redis-server did not answer on ${port}`,
  );
  if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited at start (port taken?)`);
  return {
    port,
    child,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

const NO_DISK = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

/**
 * A three-primary Redis Cluster on free loopback ports (`redis-server --cluster-enabled yes` × 3, then
 * `redis-cli --cluster create`), ready when every node says `cluster_state:ok`. With `password` every node requires it
 * (`requirepass`, `masterauth`) and the environment carries REDIS_PASSWORD. Each node's bus port is chosen
 * free too. Nothing is kept on disk beyond the nodes' config files in a temp folder removed by `stop`.
 */
export async function startRedisCluster(options: { password?: string } = {}): Promise<LocalTopology> {
  const { password } = options;
  const auth = password ? ['--requirepass', password, '--masterauth', password] : [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-cluster-'));
  const nodes: RedisProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < 3; index++) {
      const [port, bus] = [await freePort(), await freePort()];
      nodes.push(
        await startProcess(
          [
            '--port',
            String(port),
            '--cluster-enabled',
            'yes',
            '--cluster-port',
            String(bus),
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--cluster-node-timeout',
            '2000',
            ...auth,
            ...NO_DISK,
          ],
          port,
          dir,
        ),
      );
    }
    const created = spawnSync(
      binary('redis-cli'),
      [
        ...(password ? ['-a', password, '--no-auth-warning'] : []),
        '--cluster',
        'create',
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    for (const node of nodes)
      await until(
        async () => (await redisCommand(node.port, 'CLUSTER INFO', 1000, password)).includes('cluster_state:ok'),
        20_000,
        `cluster node ${node.port} did not reach cluster_state:ok`,
      );
    return {
      env: {
        REDIS_CLUSTER_NODES: nodes.map((node) => `127.0.0.1:${node.port}`).join(','),
        ...(password ? { REDIS_PASSWORD: password } : {}),
      },
      nodes,
      sentinels: [],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Options of a local Sentinel set-up. */
export interface SentinelOptions {
  /** The primary group the sentinels monitor (default `eunoe`). */
  name?: string;
  /** A primary is declared down after this long without an answer (default 500 ms). */
  downAfterMs?: number;
  /** The data nodes require it (`requirepass`, `masterauth`; the sentinels get `sentinel auth-pass`). */
  password?: string;
  /** The sentinels themselves require it (`requirepass` in their config, used between them too). */
  sentinelPassword?: string;
}

/**
 * One primary, one replica and three sentinels (quorum 2) on free loopback ports. Ready when every sentinel knows
 * the replica and the two other sentinels (so a failover can be voted and carried out at once). The environment
 * carries REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD when the options set them.
 */
export async function startRedisSentinel(options: SentinelOptions = {}): Promise<LocalTopology> {
  const { name = 'eunoe', downAfterMs = 500, password, sentinelPassword } = options;
  const auth = password ? ['--requirepass', password, '--masterauth', password] : [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-sentinel-'));
  const nodes: RedisProcess[] = [];
  const sentinels: RedisProcess[] = [];
  const stop = async () => {
    await Promise.all([...sentinels, ...nodes].map((node) => node.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primaryPort = await freePort();
    // Diskless sync with no delay: a replica (the first, and one joining after a failover) syncs at once.
    const replication = ['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0'];
    nodes.push(
      await startProcess(['--port', String(primaryPort), ...replication, ...auth, ...NO_DISK], primaryPort, dir),
    );
    const replicaPort = await freePort();
    nodes.push(
      await startProcess(
        [
          '--port',
          String(replicaPort),
          '--replicaof',
          '127.0.0.1',
          String(primaryPort),
          ...replication,
          ...auth,
          ...NO_DISK,
        ],
        replicaPort,
        dir,
      ),
    );
    await until(
      async () =>
        (await redisCommand(replicaPort, 'INFO replication', 1000, password)).includes('master_link_status:up'),
      10_000,
      'the replica did not sync with the primary',
    );
    // Each sentinel is told of the replica and of its peers up front (else it learns them from INFO and hello
    // messages over ~10 s).
    const peers = await Promise.all(
      [0, 1, 2].map(async () => ({ port: await freePort(), id: randomBytes(20).toString('hex') })),
    );
    for (const self of peers) {
      const file = path.join(dir, `sentinel-${self.port}.conf`);
      writeFileSync(
        file,
        [
          `port ${self.port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel myid ${self.id}`,
          `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
          `sentinel failover-timeout ${name} 2000`, // a failed election is retried after 2 × this
          ...(password ? [`sentinel auth-pass ${name} ${password}`] : []),
          ...(sentinelPassword ? [`requirepass ${sentinelPassword}`] : []),
          `sentinel parallel-syncs ${name} 1`,
          `sentinel known-replica ${name} 127.0.0.1 ${replicaPort}`,
          ...peers
            .filter((peer) => peer !== self)
            .map((peer) => `sentinel known-sentinel ${name} 127.0.0.1 ${peer.port} ${peer.id}`),
          '',
        ].join('\n'),
      );
      sentinels.push(await startProcess([file, '--sentinel'], self.port, dir));
    }
    for (const sentinel of sentinels)
      await until(
        async () => {
          const ask = (command: string) => redisCommand(sentinel.port, command, 1000, sentinelPassword);
          const primary = await ask(`SENTINEL GET-MASTER-ADDR-BY-NAME ${name}`);
          const peers = await ask(`SENTINEL SENTINELS ${name}`);
          return primary.includes(String(primaryPort)) && peers.startsWith('*2');
        },
        20_000,
        `sentinel ${sentinel.port} did not learn the replica and its peers`,
      );
    return {
      env: {
        REDIS_SENTINELS: sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(','),
        REDIS_SENTINEL_NAME: name,
        ...(password ? { REDIS_PASSWORD: password } : {}),
        ...(sentinelPassword ? { REDIS_SENTINEL_PASSWORD: sentinelPassword } : {}),
      },
      nodes,
      sentinels,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One redis-server on a free loopback port, as a topology (env REDIS_URL), for side-by-side benchmarks. */
export async function startRedisSingle(): Promise<LocalTopology> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-single-'));
  const port = await freePort();
  const node = await startProcess(['--port', String(port), ...NO_DISK], port, dir);
  return {
    env: { REDIS_URL: `redis://127.0.0.1:${port}` },
    nodes: [node],
    sentinels: [],
    stop: async () => {
      await node.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
