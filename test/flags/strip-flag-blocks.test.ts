import { describe, expect, it } from 'vitest';
import { FlagRegistry } from '../../src/domain/flags/flag-registry.js';
import { FLAG_ONLY_TEXT, newestUserIndex, stripFlagBlocks } from '../../src/domain/flags/strip-flag-blocks.js';

const registry = new FlagRegistry();
const known = (key: string) => registry.has(key);
const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };

describe('stripFlagBlocks', () => {
  it.each([
    ['!important note'],
    ['!!!'],
    ['!!! urgent please help'],
    ['![image](https://x/y.png) look at this'],
    ['!pip install x'],
    ['!Important: read this'],
    ['Use `!full` like this:\n```\n!full\n```'],
    ['Wow!'],
    ['!'],
  ])('%j is ordinary text and the message is the identical object', (content) => {
    const messages = [{ role: 'user', content }];
    const result = stripFlagBlocks(messages, known);
    expect(result.messages[0]).toBe(messages[0]);
    expect(result.blocks).toEqual([]);
  });

  it('strips the block and passes the rest on unchanged', () => {
    const messages = [
      {
        role: 'user',
        content: '!recent=4,+pin,-nosum Explain the migration again\n\n```sql\nselect 1;\n```',
        id: 'm1',
      },
    ];
    const result = stripFlagBlocks(messages, known);
    expect(result.messages[0]).toEqual({
      role: 'user',
      content: 'Explain the migration again\n\n```sql\nselect 1;\n```',
      id: 'm1',
    });
    expect(result.blocks.map((found) => found.index)).toEqual([0]);
    expect(messages[0]?.content).toMatch(/^!recent=4/);
  });

  it.each([['!full'], ['!+nosum,recent=3'], ['!flags   ']])(
    'the flag-only message %j becomes the neutral text',
    (content) => {
      const result = stripFlagBlocks([{ role: 'user', content }], known);
      expect(result.messages[0]).toEqual({ role: 'user', content: FLAG_ONLY_TEXT });
    },
  );

  it.each([
    ['assistant', '!full text'],
    ['system', '!full text'],
    ['tool', '!full text'],
  ])('a %s message is never parsed', (role, content) => {
    const messages = [{ role, content }];
    expect(stripFlagBlocks(messages, known).messages[0]).toBe(messages[0]);
  });

  it('the first text part of multimodal content is parsed and stripped', () => {
    const messages = [
      {
        role: 'user',
        content: [
          image,
          { type: 'text', text: '!pin What is in this picture?' },
          { type: 'text', text: '!full second part' },
        ],
      },
    ];
    const result = stripFlagBlocks(messages, known);
    expect(result.messages[0]).toEqual({
      role: 'user',
      content: [image, { type: 'text', text: 'What is in this picture?' }, { type: 'text', text: '!full second part' }],
    });
    expect(result.blocks[0]?.block.items.map((item) => item.key)).toEqual(['pin']);
    expect((messages[0]!.content[1] as { text: string }).text).toBe('!pin What is in this picture?');
  });

  it('an emptied text part is dropped when other parts remain', () => {
    const result = stripFlagBlocks([{ role: 'user', content: [{ type: 'text', text: '!+pin' }, image] }], known);
    expect(result.messages[0]).toEqual({ role: 'user', content: [image] });
  });

  it('an emptied sole text part becomes the neutral text', () => {
    const result = stripFlagBlocks([{ role: 'user', content: [{ type: 'text', text: '!nosum' }] }], known);
    expect(result.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: FLAG_ONLY_TEXT }] });
  });

  it('multimodal text that is not a flag block is left alone', () => {
    const messages = [{ role: 'user', content: [{ type: 'text', text: '![img](u) caption' }, image] }];
    expect(stripFlagBlocks(messages, known).messages[0]).toBe(messages[0]);
  });

  it('strips every user message of the history, not only the newest', () => {
    const messages = [
      { role: 'user', content: '!+nosum first' },
      { role: 'assistant', content: '!full is how you do it' },
      { role: 'user', content: '!recent=2 second' },
    ];
    const result = stripFlagBlocks(messages, known);
    expect(result.messages.map((message) => (message as { content: string }).content)).toEqual([
      'first',
      '!full is how you do it',
      'second',
    ]);
    expect(result.messages[1]).toBe(messages[1]);
    expect(result.blocks.map((found) => found.index)).toEqual([0, 2]);
  });
});

describe('newestUserIndex', () => {
  it.each([
    ['ends with a user message', ['system', 'user', 'assistant', 'user'], 3],
    ['a tool call and its result follow the user message', ['user', 'assistant', 'user', 'assistant', 'tool'], 2],
    ['outlet: the reply follows', ['user', 'assistant'], 0],
    ['no user message', ['system'], -1],
  ])('%s', (_, roles, index) => {
    expect(newestUserIndex(roles.map((role) => ({ role, content: 'x' })))).toBe(index);
  });
});
