import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import {
  countMessageTokens,
  encodingForModel,
  imageDimensions,
  imageTokens,
  loadEncoder,
  LruTokenCache,
  planContext,
  REPLY_PRIMING_TOKENS,
  tileTokens,
} from '../../src/domain/engine/index.js';
import { buildPng, dataUrl, gifHeader, jpegHeader, webpHeader } from './fixtures/build-png.js';
import { assistant, chat, prng, user } from './fixtures/conversations.js';

const o200k = getEncoding('o200k_base');
const cl100k = getEncoding('cl100k_base');

describe('encodingForModel', () => {
  it.each([
    ['gpt-4o', 'o200k_base', true],
    ['openai/gpt-4o-mini', 'o200k_base', true],
    ['openrouter.openai/gpt-4.1', 'o200k_base', true],
    ['gpt-5-nano', 'o200k_base', true],
    ['o3-mini', 'o200k_base', true],
    ['o1', 'o200k_base', true],
    ['gpt-4', 'cl100k_base', true],
    ['gpt-4-turbo-2024-04-09', 'cl100k_base', true],
    ['openai/gpt-3.5-turbo', 'cl100k_base', true],
    ['anthropic/claude-3.5-sonnet', 'o200k_base', false],
    ['llama3.2:3b', 'o200k_base', false],
    [undefined, 'o200k_base', false],
  ])('%s → %s (exact %s)', (model, encoding, exact) => {
    expect(encodingForModel(model)).toEqual({ encoding, exact });
  });
});

describe('fast counter matches js-tiktoken encode exactly', () => {
  const samples = [
    '',
    'Hello, world!',
    '   leading and trailing spaces   ',
    'line one\n\nline two\r\n\tindented',
    'Übergrößenträger café naïve façade',
    '東京都に住んでいます。日本語のテキスト',
    'emoji 👩‍👩‍👧‍👦 🚀🔥 and flags 🇫🇷',
    'function f(x) { return x ** 2 + 0x1F; } // comment',
    '{"json": [1, 2.5, -3e10], "nested": {"a": null}}',
    '<|endoftext|> and <|im_start|> as plain text',
    'supercalifragilisticexpialidocious antidisestablishmentarianism',
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    "I'm you're they'll we've it's CAN'T",
  ];
  const random = prng(7);
  const alphabet = 'abc XYZ 123 ,.;:!? éü東京 👍\n\t-_/\\"\'';
  for (let index = 0; index < 40; index += 1) {
    samples.push(
      Array.from(
        { length: Math.floor(random() * 120) },
        () => [...alphabet][Math.floor(random() * [...alphabet].length)],
      ).join(''),
    );
  }
  it.each([
    ['o200k_base', o200k],
    ['cl100k_base', cl100k],
  ] as const)('%s: same count on every sample', (name, reference) => {
    const encoder = loadEncoder(name);
    for (const sample of samples) expect(encoder.count(sample)).toBe(reference.encode(sample, [], []).length);
  });
});

describe('countMessageTokens', () => {
  const encoder = loadEncoder('o200k_base');
  const count = (text: string) => o200k.encode(text).length;
  it.each([
    [
      'plain text',
      { role: 'user', content: 'Hello there, how are you today?' },
      3 + count('user') + count('Hello there, how are you today?'),
    ],
    [
      'name adds its tokens + 1',
      { role: 'user', name: 'alice', content: 'hi' },
      3 + count('user') + count('hi') + count('alice') + 1,
    ],
    ['empty content', { role: 'assistant', content: '' }, 3 + count('assistant')],
    ['null content', { role: 'assistant', content: null }, 3 + count('assistant')],
    [
      'text parts',
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one two' },
          { type: 'text', text: 'three' },
        ],
      },
      3 + count('user') + count('one two') + count('three'),
    ],
    [
      'special-token text counted as text',
      { role: 'user', content: '<|endoftext|>' },
      3 + count('user') + o200k.encode('<|endoftext|>', [], []).length,
    ],
  ])('%s', (_name, message, expected) => {
    expect(countMessageTokens(message, encoder)).toBe(expected);
  });

  it('counts tool_calls as JSON and tool_call_id', () => {
    const calls = [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }];
    expect(countMessageTokens({ role: 'assistant', content: null, tool_calls: calls }, encoder)).toBe(
      3 + count('assistant') + count(JSON.stringify(calls)),
    );
    expect(countMessageTokens({ role: 'tool', tool_call_id: 'call_1', content: 'ok' }, encoder)).toBe(
      3 + count('tool') + count('ok') + count('call_1'),
    );
  });

  it('image parts count by tiles and the encoding depends on the model', () => {
    const withImage = {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } },
      ],
    };
    expect(countMessageTokens(withImage, encoder)).toBe(3 + count('user') + count('look') + 85);
    const text = 'Übergrößenträger 東京都 supercalifragilistic';
    expect(o200k.encode(text).length).not.toBe(cl100k.encode(text).length);
    const gpt4 = planContext({ messages: [user(text)], model: 'gpt-4' });
    const gpt4o = planContext({ messages: [user(text)], model: 'gpt-4o' });
    expect(gpt4.plan.entries[0]!.tokens).toBe(3 + cl100k.encode('user').length + cl100k.encode(text).length);
    expect(gpt4o.plan.entries[0]!.tokens).toBe(3 + count('user') + count(text));
  });
});

describe('image tokens', () => {
  it.each([
    [512, 512, 1],
    [1024, 1024, 4],
    [2048, 4096, 6],
    [4096, 8192, 6],
    [100, 3000, 4],
    [800, 600, 4],
  ])('tile formula %i×%i → 85 + 170 × %i tiles', (width, height, tiles) => {
    expect(tileTokens({ width, height })).toBe(85 + 170 * tiles);
  });

  it.each([
    ['png (real, constructed)', dataUrl('image/png', buildPng(300, 1200)), { width: 300, height: 1200 }],
    ['gif', dataUrl('image/gif', gifHeader(640, 480)), { width: 640, height: 480 }],
    ['jpeg', dataUrl('image/jpeg', jpegHeader(1920, 1080)), { width: 1920, height: 1080 }],
    ['webp', dataUrl('image/webp', webpHeader(3000, 200)), { width: 3000, height: 200 }],
    ['remote url', 'https://example.com/a.png', undefined],
    ['not base64', 'data:image/png,abc', undefined],
    ['garbage', dataUrl('image/png', Buffer.from('not an image at all, really not')), undefined],
  ])('reads the size of a %s', (_name, url, size) => {
    expect(imageDimensions(url)).toEqual(size);
  });

  it.each([
    ['low detail', { url: dataUrl('image/png', buildPng(2000, 2000)), detail: 'low' }, 85],
    [
      'base64 png by its size',
      { url: dataUrl('image/png', buildPng(300, 1200)) },
      tileTokens({ width: 300, height: 1200 }),
    ],
    [
      'remote url: documented 1024×1024 default',
      { url: 'https://example.com/cat.jpg' },
      tileTokens({ width: 1024, height: 1024 }),
    ],
  ])('%s', (_name, part, expected) => {
    expect(imageTokens(part)).toBe(expected);
  });
});

describe('token cache', () => {
  it('LruTokenCache evicts the least recently used entry', () => {
    const cache = new LruTokenCache(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
  });

  it.each([
    [10, 1, ['k5']],
    [20, 2, ['k10', 'k11']],
  ])('LruTokenCache(%i) evicts the %i least recently used entries on overflow', (capacity, evicted, gone) => {
    const cache = new LruTokenCache(capacity);
    for (let index = 0; index < capacity; index += 1) cache.set(`k${index}`, index);
    for (let index = 0; index < capacity / 2; index += 1) cache.get(`k${index}`);
    cache.set('new', 1);
    expect(cache.size).toBe(capacity + 1 - evicted);
    gone.forEach((key) => expect(cache.get(key)).toBeUndefined());
    expect(cache.get('k0')).toBe(0);
    expect(cache.get('new')).toBe(1);
  });

  it('an empty token cache is still used: the second identical run hits it for every message', () => {
    const cache = new LruTokenCache();
    const messages = chat(12);
    const first = planContext({ messages, model: 'gpt-4o', tokenCache: cache, options: { maxTokens: 100 } });
    expect(first.plan.tokenCacheHits).toBe(0);
    expect(cache.size).toBe(12);
    const second = planContext({
      messages: [...messages, user('one more')],
      model: 'gpt-4o',
      tokenCache: cache,
      options: { maxTokens: 100 },
    });
    expect(second.plan.tokenCacheHits).toBe(12);
    expect(cache.size).toBe(13);
    expect(second.plan.entries.slice(0, 12).map((entry) => entry.tokens)).toEqual(
      first.plan.entries.map((entry) => entry.tokens),
    );
  });

  it('cached counts are keyed by encoding', () => {
    const cache = new LruTokenCache();
    const messages = [user('Übergrößenträger 東京都')];
    const cl = planContext({ messages, model: 'gpt-4', tokenCache: cache });
    const o2 = planContext({ messages, model: 'gpt-4o', tokenCache: cache });
    expect(o2.plan.tokenCacheHits).toBe(0);
    expect(cl.plan.tokensBefore).not.toBe(o2.plan.tokensBefore);
  });

  it.each([
    [1, 1],
    [1.5, 1.5],
    [0, 1],
    [-2, 1],
    [Number.NaN, 1],
  ])('correction %s multiplies estimates by %s', (correction, factor) => {
    const messages = [user(chat(1, 50)[0]!.content), assistant('fine')];
    const base = planContext({ messages });
    const corrected = planContext({ messages, correction });
    corrected.plan.entries.forEach((entry, index) =>
      expect(entry.tokens).toBe(Math.ceil(base.plan.entries[index]!.tokens * factor)),
    );
  });

  it('tokensBefore includes reply priming', () => {
    const result = planContext({ messages: [user('hi')] });
    expect(result.plan.tokensBefore).toBe(result.plan.entries[0]!.tokens + REPLY_PRIMING_TOKENS);
  });
});
