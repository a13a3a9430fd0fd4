import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors/index.js';
import {
  parseOverrides,
  placementFor,
  type IsolationSettings,
} from '../../src/runtime/host/isolation/isolation-settings.js';
import { ShippedFilters, SHIPPED_FILTER_FILES } from '../../src/runtime/host/isolation/shipped-filters.js';
import {
  isLargeBody,
  WORKER_BODY_CHARACTERS,
  WORKER_BODY_MESSAGES,
} from '../../src/runtime/host/isolation/size-routed-definition.js';
import { copyShippedFilter, repoRoot } from '../helpers/create-test-runtime.js';

const settings = (mode: IsolationSettings['mode'], overrides = ''): IsolationSettings => ({
  mode,
  overrides: parseOverrides(overrides),
  loadTimeoutMs: 1,
  maxMemoryMb: 64,
});

describe('isolation settings', () => {
  it('auto isolates what is not shipped and places shipped filters as they ship; worker isolates all; off none', () => {
    const modes = ['auto', 'worker', 'off'] as const;
    expect(
      modes.map((mode) => (['worker', 'main', false] as const).map((s) => placementFor(settings(mode), 'x', s))),
    ).toEqual([
      ['worker', 'main', 'worker'],
      ['worker', 'worker', 'worker'],
      ['main', 'main', 'main'],
    ]);
  });

  it('the shipped context filter runs its large chats in a worker under auto (its cost grows with a chat); the others in the main thread', () => {
    const shipped = new ShippedFilters();
    const placed = Object.fromEntries(
      SHIPPED_FILTER_FILES.map((name) => [
        name,
        placementFor(
          settings('auto'),
          name.replace(/\.ts$/, ''),
          shipped.placement(path.join(repoRoot, 'filters', name)),
        ),
      ]),
    );
    expect(placed).toEqual({
      'accounting.ts': 'main',
      'context.ts': 'large-in-worker',
      'openai-proxy.ts': 'main',
      'spend-limit.ts': 'main',
      'system-prefix.ts': 'main',
      'turn-limit.ts': 'main',
    });
    // The admin keeps the last word: an override puts it back in the main thread.
    expect(
      placementFor(
        settings('auto', 'context=main'),
        'context',
        shipped.placement(path.join(repoRoot, 'filters/context.ts')),
      ),
    ).toBe('main');
  });

  it('a per-file override wins; a non-shipped file forced into the main thread is import-checked first', () => {
    const chosen = settings('auto', 'context=worker, mine=main');
    expect(placementFor(chosen, 'context', 'main')).toBe('worker');
    expect(placementFor(chosen, 'mine', false)).toBe('probe');
    expect(placementFor(settings('off', 'mine=main'), 'mine', false)).toBe('main');
    expect(() => parseOverrides('mine=sandbox')).toThrow(ConfigError);
  });

  it('a chat is large past 5,000 messages or 1 Mi characters of text (string contents and text parts)', () => {
    const chat = (count: number, text = 'x') => ({
      messages: Array.from({ length: count }, () => ({ role: 'user', content: text })),
    });
    expect([isLargeBody(chat(WORKER_BODY_MESSAGES)), isLargeBody(chat(WORKER_BODY_MESSAGES + 1))]).toEqual([
      false,
      true,
    ]);
    const half = 'y'.repeat(WORKER_BODY_CHARACTERS / 2);
    expect(isLargeBody(chat(2, half))).toBe(false);
    expect(isLargeBody({ messages: [...chat(2, half).messages, { role: 'user', content: 'z' }] })).toBe(true);
    const parts = {
      role: 'user',
      content: [
        { type: 'text', text: half },
        { type: 'image_url', image_url: { url: 'u' } },
      ],
    };
    expect(isLargeBody({ messages: [parts, parts] })).toBe(false);
    expect(isLargeBody({ messages: [parts, parts, { role: 'user', content: [{ type: 'text', text: 'z' }] }] })).toBe(
      true,
    );
    expect(isLargeBody({ prompt: 'no messages' })).toBe(false);
  });

  it('recognises every shipped filter by content, wherever it is copied; an edit makes it not shipped', () => {
    const shipped = new ShippedFilters();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-shipped-'));
    try {
      for (const name of SHIPPED_FILTER_FILES) {
        expect(shipped.isShipped(path.join(repoRoot, 'filters', name))).toBe(true);
        copyShippedFilter(name, dir);
        expect(shipped.isShipped(path.join(dir, name))).toBe(true);
      }
      const copy = path.join(dir, 'context.ts');
      writeFileSync(copy, readFileSync(copy, 'utf8').replace('export default', 'const x = 1;\nexport default'));
      expect(shipped.isShipped(copy)).toBe(false);
      expect(shipped.isShipped(path.join(dir, 'missing.ts'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
