import { StateUnavailableError } from '../../../src/core/errors/index.js';
import { ScopedState } from '../../../src/state/scoped-state.js';
import type { StateStore } from '../../../src/state/types.js';
import { freePort } from '../../helpers/redis-server.js';
import { redisStore } from '../../helpers/temp-store.js';

/** A Redis store pointed at a loopback port where nothing listens: its calls reject fast. */
export async function deadRedisStore(): Promise<StateStore> {
  return redisStore(`redis://127.0.0.1:${await freePort()}`, 'dead:', 200);
}

/** The host's flags namespace on a store. */
export function flagsNamespace(store: StateStore): ScopedState {
  return new ScopedState(store, 'flags:');
}

const reject = () => Promise.reject(new StateUnavailableError('test store is down'));

/** A StateStore whose every call rejects with StateUnavailableError (the store is down). */
export function rejectingStore(): StateStore {
  return {
    backend: 'memory',
    get: reject,
    getMany: reject,
    set: reject,
    setMany: reject,
    delete: reject,
    deleteMany: reject,
    keys: reject,
    compareAndSet: reject,
    increment: reject,
    listPush: reject,
    listPushMany: reject,
    listRange: reject,
    windowAdmit: reject,
    append: reject,
    range: reject,
    acquireLease: reject,
    publish: reject,
    subscribe: () => () => {},
    health: () => ({ backend: 'memory', ok: false, detail: 'down' }),
    close: async () => {},
  };
}

/** A StateStore whose calls never settle (a hung backend); calls are counted. */
export function hangingStore(): StateStore & { calls: number } {
  const store = rejectingStore() as StateStore & { calls: number };
  store.calls = 0;
  const hang = () => {
    store.calls++;
    return new Promise<never>(() => {});
  };
  return Object.assign(store, { get: hang, compareAndSet: hang, set: hang });
}
