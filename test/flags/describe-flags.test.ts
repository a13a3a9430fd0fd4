import { describe, expect, it } from 'vitest';
import { createActiveFlags } from '../../src/domain/flags/active-flags.js';
import { describeFlags, FLAGS_LINE_PREFIX } from '../../src/domain/flags/describe-flags.js';

describe('describeFlags', () => {
  it.each([
    ['nothing', { chatKey: 'c' }, `${FLAGS_LINE_PREFIX} no persistent flags`],
    [
      'persistent flags, pins and tags',
      {
        chatKey: 'c',
        persistent: { recent: 6, nosum: true },
        marks: {
          m1: { pinned: true, tags: ['decision'] },
          m2: { pinned: true },
          m3: { tags: ['decision', 'api'] },
          m4: { tags: ['decision'] },
        },
      },
      `${FLAGS_LINE_PREFIX} +nosum, +recent=6 · pinned: 2 messages · tags: api (1), decision (3)`,
    ],
    [
      'one pin, switched-off flag',
      { chatKey: 'c', persistent: { full: false }, marks: { m: { pinned: true } } },
      `${FLAGS_LINE_PREFIX} +full=false · pinned: 1 message`,
    ],
    [
      'a value needing quotes',
      { chatKey: 'c', persistent: { keep_tag: 'a, b' } },
      `${FLAGS_LINE_PREFIX} +keep_tag="a, b"`,
    ],
    [
      'defaults not overridden and this turn, without !flags itself',
      {
        chatKey: 'c',
        persistent: { recent: 2 },
        defaults: { recent: 6, nosum: true },
        temporary: { flags: true, full: true },
      },
      `${FLAGS_LINE_PREFIX} +recent=2 · defaults: nosum · this turn: full`,
    ],
    [
      'a default cleared in this chat is not listed',
      { chatKey: 'c', defaults: { nosum: true }, cleared: ['nosum'] },
      `${FLAGS_LINE_PREFIX} no persistent flags`,
    ],
  ])('%s', (_, init, line) => {
    expect(describeFlags(createActiveFlags(init))).toBe(line);
  });
});

describe('createActiveFlags', () => {
  it('layers defaults < persistent < temporary and reads false as off', () => {
    const flags = createActiveFlags({
      chatKey: 'c',
      defaults: { nosum: true, recent: 6 },
      persistent: { recent: 4, full: true },
      temporary: { full: false },
    });
    expect(flags.effective).toEqual({ nosum: true, recent: 4, full: false });
    expect([flags.has('nosum'), flags.has('FULL'), flags.has('target')]).toEqual([true, false, false]);
    expect(flags.get('recent')).toBe(4);
    expect(Object.isFrozen(flags.effective)).toBe(true);
  });
});
