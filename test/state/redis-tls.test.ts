import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors/index.js';
import { loadConfig } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { canStartTlsRedis, startTlsRedis, type TlsRedis } from '../helpers/redis-tls.js';
import { usageRecord } from '../usage/helpers/usage-record.js';

const PASSWORD = 'tls-secret';

// A redis-server that speaks only TLS, with a certificate signed by a throwaway CA, and a password.
describe.runIf(canStartTlsRedis())('Redis over TLS with a password', () => {
  let redis: TlsRedis;
  beforeAll(async () => {
    redis = await startTlsRedis(PASSWORD);
  }, 60_000);
  afterAll(async () => {
    await redis?.stop();
  });
  const open = async (settings: Record<string, string>) =>
    createStateStore({
      config: loadConfig({ REDIS_PREFIX: `eunoe-test:${randomUUID()}:`, STATE_TIMEOUT_MS: '2000', ...settings }),
      logger: silentLogger(),
    });

  it('a rediss:// URL with the password, trusting the CA of REDIS_TLS_CA_FILE: writes and reads', async () => {
    const store = await open({
      REDIS_URL: `rediss://:${PASSWORD}@127.0.0.1:${redis.port}`,
      REDIS_TLS_CA_FILE: redis.caFile,
    });
    try {
      expect(store.health()).toMatchObject({ ok: true, queued: 0 });
      await store.set('valves:u1', { on: true });
      expect(await store.get('valves:u1')).toEqual({ on: true });
      expect(await store.usage!.record(usageRecord({ messageId: 'm1', cost: '0.25' }))).toBe(true);
      expect(await store.usage!.spent('u1', 'm:2026-11')).toBe('0.25');
    } finally {
      await store.close();
    }
  });

  it('REDIS_TLS=true turns TLS on for a redis:// URL too', async () => {
    const store = await open({
      REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${redis.port}`,
      REDIS_TLS: 'true',
      REDIS_TLS_CA_FILE: redis.caFile,
    });
    try {
      await store.set('k', 1);
      expect(await store.get('k')).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('a wrong password is a clear start-up error, not an endless outage', async () => {
    const started = open({ REDIS_URL: `rediss://:wrong@127.0.0.1:${redis.port}`, REDIS_TLS_CA_FILE: redis.caFile });
    await expect(started).rejects.toThrow(ConfigError);
    await expect(started).rejects.toThrow(/refused the credentials \(WRONGPASS/);
    // The redacted URL names the server, never the password.
    await expect(started).rejects.not.toThrow(/wrong@/);
  });

  it('a certificate not signed by a trusted CA is a clear start-up error naming REDIS_TLS_CA_FILE', async () => {
    const started = open({ REDIS_URL: `rediss://:${PASSWORD}@127.0.0.1:${redis.port}` });
    await expect(started).rejects.toThrow(ConfigError);
    await expect(started).rejects.toThrow(/TLS certificate is not trusted .*REDIS_TLS_CA_FILE/);
  });

  it('an unreadable REDIS_TLS_CA_FILE or one with no certificate is a ConfigError', async () => {
    await expect(open({ REDIS_URL: 'rediss://127.0.0.1:1', REDIS_TLS_CA_FILE: '/nonexistent/ca.pem' })).rejects.toThrow(
      /REDIS_TLS_CA_FILE: cannot read \/nonexistent\/ca.pem/,
    );
    await expect(open({ REDIS_URL: 'rediss://127.0.0.1:1', REDIS_TLS_CA_FILE: '/etc/hostname' })).rejects.toThrow(
      /REDIS_TLS_CA_FILE: \/etc\/hostname holds no PEM certificate/,
    );
  });
});
