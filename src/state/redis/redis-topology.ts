import { readFileSync } from 'node:fs';
import { ConfigError } from '../../core/errors/index.js';
import { errorMessage } from '../../core/util/error-message.js';

/** A `host:port` of a sentinel or a cluster node. */
export interface RedisNode {
  host: string;
  port: number;
}

/** Credentials and TLS shared by every connection of a Sentinel or Cluster set-up (a URL carries its own). */
export interface RedisAuth {
  username?: string;
  password?: string;
  /** Password of the sentinels themselves, when they have one. */
  sentinelPassword?: string;
  /** TLS to the data nodes (and to the sentinels). */
  tls: boolean;
  /** PEM of the CA trusted for TLS (REDIS_TLS_CA_FILE), in place of the system's CAs. */
  ca?: string;
}

/** How Eunoe reaches Redis: one node by URL, a primary found through Sentinel, or a Cluster. */
export type RedisTopology =
  | { kind: 'single'; url: string; tls?: { ca?: string } }
  | { kind: 'sentinel'; sentinels: RedisNode[]; name: string; auth: RedisAuth }
  | { kind: 'cluster'; nodes: RedisNode[]; auth: RedisAuth };

/** The Redis settings of the configuration (see docs/configuration.md). */
export interface RedisSettings {
  REDIS_URL?: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_NAME?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_CLUSTER_NODES?: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
  REDIS_TLS?: boolean;
  REDIS_TLS_CA_FILE?: string;
}

/** Parse `host:port,host:port` (IPv6 as `[::1]:26379`); ConfigError naming `variable` when malformed. */
export function parseRedisNodes(text: string, variable: string): RedisNode[] {
  const nodes = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(part);
      const port = Number(match?.[3]);
      if (!match || port < 1 || port > 65535)
        throw new ConfigError(`${variable}: '${part}' is not host:port (e.g. redis-1:26379)`);
      return { host: (match[1] ?? match[2]) as string, port };
    });
  if (nodes.length === 0) throw new ConfigError(`${variable} lists no host:port`);
  return nodes;
}

/**
 * The topology the settings ask for, or undefined when none is set (SQLite). At most one of REDIS_URL,
 * REDIS_SENTINELS and REDIS_CLUSTER_NODES; Sentinel needs REDIS_SENTINEL_NAME. Throws ConfigError otherwise.
 */
export function redisTopology(settings: RedisSettings): RedisTopology | undefined {
  const chosen = (['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const).filter((name) => settings[name]);
  if (chosen.length > 1) throw new ConfigError(`Set one of ${chosen.join(', ')}, not several`);
  const auth: RedisAuth = {
    ...(settings.REDIS_USERNAME ? { username: settings.REDIS_USERNAME } : {}),
    ...(settings.REDIS_PASSWORD ? { password: settings.REDIS_PASSWORD } : {}),
    ...(settings.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: settings.REDIS_SENTINEL_PASSWORD } : {}),
    tls: settings.REDIS_TLS === true,
    ...(settings.REDIS_TLS_CA_FILE ? { ca: readCaFile(settings.REDIS_TLS_CA_FILE) } : {}),
  };
  if (settings.REDIS_URL) {
    const tls = settings.REDIS_URL.startsWith('rediss://') || auth.tls;
    return { kind: 'single', url: settings.REDIS_URL, ...(tls ? { tls: auth.ca ? { ca: auth.ca } : {} } : {}) };
  }
  if (settings.REDIS_SENTINELS) {
    if (!settings.REDIS_SENTINEL_NAME)
      throw new ConfigError('REDIS_SENTINELS needs REDIS_SENTINEL_NAME (the primary group name the sentinels monitor)');
    const sentinels = parseRedisNodes(settings.REDIS_SENTINELS, 'REDIS_SENTINELS');
    return { kind: 'sentinel', sentinels, name: settings.REDIS_SENTINEL_NAME, auth };
  }
  if (settings.REDIS_CLUSTER_NODES)
    return { kind: 'cluster', nodes: parseRedisNodes(settings.REDIS_CLUSTER_NODES, 'REDIS_CLUSTER_NODES'), auth };
  return undefined;
}

/** The PEM text of REDIS_TLS_CA_FILE; ConfigError when it cannot be read or holds no certificate. */
function readCaFile(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`REDIS_TLS_CA_FILE: cannot read ${file} (${errorMessage(error)})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new ConfigError(`REDIS_TLS_CA_FILE: ${file} holds no PEM certificate`);
  return pem;
}

/** One line naming the topology for logs and health, with no password. */
export function describeTopology(topology: RedisTopology): string {
  const list = (nodes: RedisNode[]) => nodes.map((node) => `${node.host}:${node.port}`).join(',');
  switch (topology.kind) {
    case 'single':
      return `${redactRedisUrl(topology.url)}${topology.tls && !topology.url.startsWith('rediss://') ? ' (tls)' : ''}`;
    case 'sentinel':
      return `sentinel '${topology.name}' via ${list(topology.sentinels)}${topology.auth.tls ? ' (tls)' : ''}`;
    case 'cluster':
      return `cluster via ${list(topology.nodes)}${topology.auth.tls ? ' (tls)' : ''}`;
  }
}

/** The URL with any password replaced by `***`, for logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable REDIS_URL>';
  }
}
