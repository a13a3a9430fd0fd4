import { describe, expect, it } from 'vitest';
import { builtinFlags } from '../../src/domain/flags/builtin-flags.js';
import { BUILTIN_OWNER, FlagRegistry } from '../../src/domain/flags/flag-registry.js';
import { defineFilter } from '../../src/runtime/host/define-filter.js';
import { ConfigError } from '../../src/core/errors/index.js';

const costFilter = defineFilter({
  id: 'cost',
  flags: [
    { key: 'nocost', kind: 'boolean', description: 'Do not show the cost line' },
    { key: 'Budget', kind: 'number', min: 0, description: 'Spend cap for this chat' },
  ],
});

describe('FlagRegistry', () => {
  it.each([
    'full',
    'nosum',
    'target',
    'context',
    'recent',
    'pin',
    'tag',
    'keep_tag',
    'weight',
    'tool_penalty',
    'pair_coherence',
    'flags',
  ])('knows the built-in %s', (key) => {
    const registry = new FlagRegistry();
    expect(registry.get(key)?.owner).toBe(BUILTIN_OWNER);
    expect(registry.has(key.toUpperCase())).toBe(true);
  });

  it('registers the flags a filter declares with defineFilter, keys in lower case', () => {
    const registry = new FlagRegistry();
    registry.register('cost', costFilter.flags ?? []);
    expect(registry.get('nocost')).toMatchObject({ owner: 'cost', kind: 'boolean' });
    expect(registry.get('BUDGET')).toMatchObject({ key: 'budget', owner: 'cost', min: 0 });
    expect(registry.list().map((flag) => flag.key)).toEqual([
      ...builtinFlags.map((flag) => flag.key),
      'nocost',
      'budget',
    ]);
  });

  it('re-registering (hot reload) replaces the previous set, unregister removes it', () => {
    const registry = new FlagRegistry();
    registry.register('cost', costFilter.flags ?? []);
    registry.register('cost', [{ key: 'nocost', kind: 'boolean', description: 'v2' }]);
    expect(registry.has('budget')).toBe(false);
    expect(registry.get('nocost')?.description).toBe('v2');
    registry.unregister('cost');
    expect(registry.has('nocost')).toBe(false);
    expect(registry.has('full')).toBe(true);
  });

  it.each([
    ['a built-in key', 'other', [{ key: 'full', kind: 'boolean', description: '' }], /already registered by builtin/],
    [
      "another filter's key",
      'other',
      [{ key: 'nocost', kind: 'boolean', description: '' }],
      /already registered by cost/,
    ],
    ['a key the grammar cannot express', 'other', [{ key: '9lives', kind: 'boolean', description: '' }], /not valid/],
    ['a key with a sign', 'other', [{ key: '+x', kind: 'boolean', description: '' }], /not valid/],
    [
      'the same key twice',
      'other',
      [
        { key: 'x', kind: 'boolean', description: '' },
        { key: 'X', kind: 'boolean', description: '' },
      ],
      /declared twice/,
    ],
    ['the reserved owner name', BUILTIN_OWNER, [{ key: 'x', kind: 'boolean', description: '' }], /cannot be called/],
  ] as const)('rejects %s with a ConfigError and keeps the old set', (_, owner, specs, message) => {
    const registry = new FlagRegistry();
    registry.register('cost', costFilter.flags ?? []);
    const before = registry.list();
    expect(() => registry.register(owner, specs as never)).toThrow(ConfigError);
    expect(() => registry.register(owner, specs as never)).toThrow(message);
    expect(registry.list()).toEqual(before);
  });

  it('unregistering the built-in owner removes nothing', () => {
    const registry = new FlagRegistry();
    registry.unregister(BUILTIN_OWNER);
    expect(registry.list()).toHaveLength(builtinFlags.length);
  });
});
