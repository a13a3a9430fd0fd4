import { describe, expect, it } from 'vitest';
import { FlagRegistry } from '../../src/domain/flags/flag-registry.js';
import { parseFlagBlock } from '../../src/domain/flags/parse-flag-block.js';

const registry = new FlagRegistry();
registry.register('demo', [
  { key: 'key', kind: 'string', description: 'test flag' },
  { key: 'a', kind: 'boolean', description: '' },
  { key: 'b', kind: 'string', description: '' },
  { key: 'c', kind: 'boolean', description: '' },
]);
const known = (key: string) => registry.has(key);
const parse = (text: string) => parseFlagBlock(text, known);

describe('parseFlagBlock', () => {
  it.each([
    ['!full Explain', [{ op: 'set', key: 'full' }], 'Explain'],
    [
      '!recent=4,+pin,-nosum Explain the migration again',
      [
        { op: 'set', key: 'recent', value: '4' },
        { op: 'add', key: 'pin' },
        { op: 'remove', key: 'nosum' },
      ],
      'Explain the migration again',
    ],
    [
      '!a,b="x,y",c z',
      [
        { op: 'set', key: 'a' },
        { op: 'set', key: 'b', value: 'x,y' },
        { op: 'set', key: 'c' },
      ],
      'z',
    ],
    ['!tag="two words, and a comma" rest', [{ op: 'set', key: 'tag', value: 'two words, and a comma' }], 'rest'],
    ['!tag=\'single quoted, "inner"\' rest', [{ op: 'set', key: 'tag', value: 'single quoted, "inner"' }], 'rest'],
    ['!tag="say \\"hi\\" \\\\ done" x', [{ op: 'set', key: 'tag', value: 'say "hi" \\ done' }], 'x'],
    ['!tag="a\\nb" x', [{ op: 'set', key: 'tag', value: 'a\\nb' }], 'x'],
    [
      '!FULL,Recent=3 x',
      [
        { op: 'set', key: 'full' },
        { op: 'set', key: 'recent', value: '3' },
      ],
      'x',
    ],
    ['!full', [{ op: 'set', key: 'full' }], ''],
    ['!full\n\n  indented code', [{ op: 'set', key: 'full' }], '  indented code'],
    ['!full\tafter tab', [{ op: 'set', key: 'full' }], 'after tab'],
  ])('%j parses into items and rest', (text, items, rest) => {
    const block = parse(text);
    expect(block?.items.map(({ op, key, value }) => (value === undefined ? { op, key } : { op, key, value }))).toEqual(
      items,
    );
    expect(block?.rest).toBe(rest);
  });

  it.each([
    ['!key="café" x', 'café'],
    ['!key="日本語 テキスト" x', '日本語 テキスト'],
    ["!key='emoji 🎉' x", 'emoji 🎉'],
    ['!key=naïve x', 'naïve'],
  ])('%j keeps the unicode value intact', (text, value) => {
    expect(parse(text)?.items[0]?.value).toBe(value);
  });

  it('keeps repeated keys in order (the appliers make the last one win)', () => {
    expect(parse('!tag=a,tag=b z')?.items.map((item) => item.value)).toEqual(['a', 'b']);
    expect(parse('!+pin,-pin x')?.items.map((item) => item.op)).toEqual(['add', 'remove']);
  });

  it.each([['!important note'], ['!pip install numpy'], ['!ls -la'], ['!-- comment'], ['!full,important x']])(
    '%j (an unknown key) is ordinary text',
    (text) => {
      expect(parse(text)).toBeUndefined();
    },
  );

  it.each([
    ['!Important: read this'],
    ['!!! urgent please help'],
    ['!'],
    ['! full'],
    ['!\nfull body'],
    ['!full, recent=3 x'],
    ['!full,'],
    ['!recent= 3'],
    ['!tag="unterminated x'],
    ["!tag='unterminated x"],
    ['!tag="a"b x'],
    ['!full:x'],
    ['!+-full'],
  ])('%j does not parse and is ordinary text', (text) => {
    expect(parse(text)).toBeUndefined();
  });

  it.each([['![img](http://x/y.png) caption'], ['![](a.png)']])(
    'a markdown image at the start (%j) is left alone',
    (text) => {
      expect(parse(text)).toBeUndefined();
    },
  );

  it.each([[' !full leading space'], ['hello !full'], ['`!full` in code'], ['```\n!full\n```']])(
    '%j: a flag not at the very start is text',
    (text) => {
      expect(parse(text)).toBeUndefined();
    },
  );

  it('without a key predicate only the grammar is checked', () => {
    expect(parseFlagBlock('!anything=1 x')?.items).toEqual([
      { op: 'set', key: 'anything', value: '1', raw: 'anything=1' },
    ]);
  });

  it('records the raw block', () => {
    expect(parse('!recent=4,+pin  rest')?.raw).toBe('!recent=4,+pin');
  });
});
