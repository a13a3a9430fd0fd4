import { describe, expect, it } from 'vitest';
import { appliedKey, applyBlock, checkItems, temporaryFlags } from '../../src/domain/flags/apply-flag-block.js';
import { FlagRegistry } from '../../src/domain/flags/flag-registry.js';
import { emptyFlagState, type FlagStateDoc } from '../../src/domain/flags/flag-state.js';
import { parseFlagBlock } from '../../src/domain/flags/parse-flag-block.js';

const registry = new FlagRegistry();
registry.register('memo', [{ key: 'remember', kind: 'integer', scope: 'message', description: 'keep for N turns' }]);

/** Apply the blocks in order, each on the message id given, and return the state. */
function run(steps: Array<[messageId: string, block: string]>, start: FlagStateDoc = emptyFlagState()): FlagStateDoc {
  for (const [messageId, text] of steps) {
    const block = parseFlagBlock(text, (key) => registry.has(key));
    if (!block) throw new Error(`not a block: ${text}`);
    applyBlock(start, checkItems(block.items, registry).items, messageId, appliedKey(messageId, block.items));
  }
  return start;
}

describe('applyBlock', () => {
  it.each([
    [
      '+ then - on later messages',
      [
        ['a', '!+nosum'],
        ['b', '!-nosum'],
      ],
      {},
    ],
    ['- then + in one block', [['a', '!-recent,+recent=3']], { recent: 3 }],
    ['+ then - in one block', [['a', '!+recent=3,-recent']], {}],
    ['plain flags are not persistent', [['a', '!full,recent=2']], {}],
  ] as const)('%s', (_, steps, persistent) => {
    expect(run(steps.map(([id, text]) => [id, text])).persistent).toEqual(persistent);
  });

  it.each([
    ['tags replace, last wins', [['m', '!tag=a,tag=b']], { m: { tags: ['b'] } }],
    ['a quoted list gives several tags', [['m', '!tag="a, b"']], { m: { tags: ['a', 'b'] } }],
    [
      '-tag=x removes one label',
      [
        ['m', '!tag="a,b"'],
        ['m', '!-tag=a'],
      ],
      { m: { tags: ['b'] } },
    ],
    [
      '-tag removes every label',
      [
        ['m', '!tag="a,b"'],
        ['m', '!-tag'],
      ],
      {},
    ],
    ['pins and tags live together', [['m', '!+pin,tag=x']], { m: { pinned: true, tags: ['x'] } }],
    [
      'marks stay on their own message',
      [
        ['m', '!pin'],
        ['n', '!tag=x'],
      ],
      { m: { pinned: true }, n: { tags: ['x'] } },
    ],
    ['a registered message-scoped flag', [['m', '!remember=3']], { m: { flags: { remember: 3 } } }],
    [
      '... removed again',
      [
        ['m', '!remember=3'],
        ['m', '!-remember'],
      ],
      {},
    ],
  ] as const)('marks: %s', (_, steps, marks) => {
    expect(run(steps.map(([id, text]) => [id, text])).marks).toEqual(marks);
  });

  it('-key also hides a default until +key sets it again', () => {
    expect(run([['a', '!-nosum']]).cleared).toEqual(['nosum']);
    expect(
      run([
        ['a', '!-nosum'],
        ['b', '!+nosum'],
      ]).cleared,
    ).toEqual([]);
  });

  it('records the applied key once', () => {
    const state = run([['a', '!+nosum']]);
    expect(state.applied).toEqual([appliedKey('a', parseFlagBlock('!+nosum')?.items ?? [])]);
  });
});

describe('appliedKey', () => {
  it.each([
    ['!+nosum', '!+NOSUM', true],
    ['!+nosum', '!-nosum', false],
    ['!recent=3', '!recent=4', false],
    ['!pin,tag=a', '!tag=a,pin', false],
  ])('%s vs %s on one message: same key = %s', (first, second, same) => {
    const key = (text: string) => appliedKey('m', parseFlagBlock(text)?.items ?? []);
    expect(key(first) === key(second)).toBe(same);
  });
});

describe('temporaryFlags', () => {
  it('keeps plain turn-scoped items only, last wins', () => {
    const block = parseFlagBlock('!recent=2,+nosum,pin,recent=5,tag=x,full=false');
    expect(temporaryFlags(checkItems(block?.items ?? [], registry).items)).toEqual({ recent: 5, full: false });
  });
});
