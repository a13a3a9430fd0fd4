import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors/index.js';
import { loadConfig, usesRedis } from '../../src/core/config.js';
import { describeTopology, parseRedisNodes, redisTopology } from '../../src/state/redis/redis-topology.js';

describe('Redis topology from the configuration', () => {
  it('reads Sentinel and Cluster settings with credentials and TLS passed through', () => {
    const sentinel = redisTopology(
      loadConfig({
        REDIS_SENTINELS: 'sentinel-a:26379, sentinel-b:26380,[::1]:26381',
        REDIS_SENTINEL_NAME: 'mymaster',
        REDIS_PASSWORD: 'hunter2',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
        REDIS_TLS: 'true',
      }),
    );
    expect(sentinel).toEqual({
      kind: 'sentinel',
      name: 'mymaster',
      sentinels: [
        { host: 'sentinel-a', port: 26379 },
        { host: 'sentinel-b', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      auth: { password: 'hunter2', sentinelPassword: 'sentinel-secret', tls: true },
    });
    expect(describeTopology(sentinel!)).toBe(
      "sentinel 'mymaster' via sentinel-a:26379,sentinel-b:26380,::1:26381 (tls)",
    );
    expect(describeTopology(sentinel!)).not.toContain('hunter2');
    const cluster = redisTopology(
      loadConfig({ REDIS_CLUSTER_NODES: 'node-1:7000,node-2:7001', REDIS_USERNAME: 'eunoe' }),
    );
    expect(cluster).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'node-1', port: 7000 },
        { host: 'node-2', port: 7001 },
      ],
      auth: { username: 'eunoe', tls: false },
    });
    expect(redisTopology(loadConfig({ REDIS_URL: 'redis://:pw@cache:6379/2' }))).toEqual({
      kind: 'single',
      url: 'redis://:pw@cache:6379/2',
    });
    expect(redisTopology(loadConfig({}))).toBeUndefined();
    expect(usesRedis(loadConfig({ REDIS_CLUSTER_NODES: 'node-1:7000' }))).toBe(true);
    expect(usesRedis(loadConfig({}))).toBe(false);
  });

  it('refuses settings that cannot work, naming the variable', () => {
    expect(() => redisTopology({ REDIS_SENTINELS: 'a:26379' })).toThrow(/REDIS_SENTINEL_NAME/);
    expect(() => redisTopology({ REDIS_URL: 'redis://a', REDIS_CLUSTER_NODES: 'b:7000' })).toThrow(ConfigError);
    expect(() => parseRedisNodes('a:26379,b', 'REDIS_SENTINELS')).toThrow(/REDIS_SENTINELS: 'b' is not host:port/);
    expect(() => parseRedisNodes('a:70000', 'REDIS_CLUSTER_NODES')).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => parseRedisNodes(' , ', 'REDIS_CLUSTER_NODES')).toThrow(/lists no host:port/);
  });
});
