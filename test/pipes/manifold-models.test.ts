import { describe, expect, it } from 'vitest';
import type { ActivePipe } from '../../src/runtime/host/module-registry.js';
import { ManifoldModels } from '../../src/runtime/pipes/manifold-models.js';
import { definePipe } from '../../src/sdk.js';
import { silentLogger } from '../../src/core/util/logger.js';
import type { ScopedState } from '../../src/state/scoped-state.js';

/** A loaded manifold as the registry holds it (only what the cache reads). */
function loaded(definition: ReturnType<typeof definePipe>, valves: Record<string, unknown> = {}): ActivePipe {
  return {
    id: 'm',
    name: 'M: ',
    file: 'm.ts',
    definition,
    valves,
    state: {} as ScopedState,
  } as unknown as ActivePipe;
}

describe('ManifoldModels: the cache of models()', () => {
  it('calls models() once within the TTL; after it, serves the old list once while refreshing in the background', async () => {
    let clock = 0;
    let version = 0;
    let release!: () => void;
    let gate: Promise<void> = Promise.resolve();
    const pipe = loaded(
      definePipe({
        modelsTtlMs: 1000,
        models: async () => {
          version += 1;
          const mine = version;
          await gate;
          return [{ id: `v${mine}` }];
        },
        pipe: () => '',
      }),
    );
    const cache = new ManifoldModels({ services: {}, logger: silentLogger(), now: () => clock });
    expect(await cache.get(pipe)).toEqual([{ id: 'v1' }]);
    clock = 999;
    expect(await cache.get(pipe)).toEqual([{ id: 'v1' }]);
    expect(version).toBe(1);
    clock = 1000;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    expect(await cache.get(pipe)).toEqual([{ id: 'v1' }]); // stale, refresh started, not waited for
    expect(await cache.get(pipe)).toEqual([{ id: 'v1' }]); // one refresh at a time
    expect(version).toBe(2);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get(pipe)).toEqual([{ id: 'v2' }]);
  });

  it('takes its TTL from the valves when modelsTtlMs is a function of them', async () => {
    let clock = 0;
    let calls = 0;
    const definition = definePipe({
      modelsTtlMs: (valves: Record<string, unknown>) => Number(valves.ttl),
      models: () => {
        calls += 1;
        return [{ id: `v${calls}` }];
      },
      pipe: () => '',
    });
    const pipe = loaded(definition, { ttl: 5000 });
    const cache = new ManifoldModels({ services: {}, logger: silentLogger(), now: () => clock });
    expect(await cache.get(pipe)).toEqual([{ id: 'v1' }]);
    clock = 4999;
    await cache.get(pipe);
    expect(calls).toBe(1);
    clock = 5000;
    await cache.get(pipe);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(2);
  });

  it('a failing refresh keeps the last good list; new valves start a new list; sync models() and arrays work', async () => {
    let clock = 0;
    let fail = false;
    const definition = definePipe({
      modelsTtlMs: 10,
      models: ({ valves }) => {
        if (fail) throw new Error('upstream down');
        return [{ id: String((valves as { tag?: string }).tag ?? 'none') }];
      },
      pipe: () => '',
    });
    const cache = new ManifoldModels({ services: {}, logger: silentLogger(), now: () => clock });
    const pipe = loaded(definition, { tag: 'a' });
    expect(await cache.get(pipe)).toEqual([{ id: 'a' }]);
    fail = true;
    clock = 100;
    await cache.get(pipe);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get(pipe)).toEqual([{ id: 'a' }]);
    fail = false;
    pipe.valves = { tag: 'b' } as unknown as ActivePipe['valves'];
    expect(await cache.get(pipe)).toEqual([{ id: 'b' }]);
    const fixed = loaded(definePipe({ models: [{ id: 'x', name: 'X' }], pipe: () => '' }));
    expect(await cache.get(fixed)).toEqual([{ id: 'x', name: 'X' }]);
    expect(await cache.get(loaded(definePipe({ pipe: () => '' })))).toEqual([]);
  });

  it('a models() slower than firstWaitMs lets /models answer without it; the list lands in the cache', async () => {
    let release!: (models: Array<{ id: string }>) => void;
    const pipe = loaded(
      definePipe({
        models: () =>
          new Promise<Array<{ id: string }>>((resolve) => {
            release = resolve;
          }),
        pipe: () => '',
      }),
    );
    const cache = new ManifoldModels({ services: {}, logger: silentLogger(), firstWaitMs: 1 });
    expect(await cache.get(pipe)).toEqual([]);
    release([{ id: 'late' }]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get(pipe)).toEqual([{ id: 'late' }]);
  });
});
