import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { messageIds } from '../../src/domain/engine/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The hash memos remember texts by value; huge texts must not be held by them. */
describe('message id memos and huge texts', () => {
  it('ids of 24 different 4 MB messages leave the heap about where it was', () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const filler = 'x'.repeat(4_000_000);
    const ids = new Set<string>();
    for (let round = 0; round < 24; round++) {
      // A fresh flat string each round (as JSON.parse makes one per request), opening its chat and inside it.
      const huge = JSON.parse(JSON.stringify(`${round} ${filler}`)) as string;
      const [first, , third] = messageIds([
        { role: 'user', content: huge },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: `${huge}!` },
      ]);
      ids.add(first!);
      ids.add(third!);
    }
    gc();
    const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;
    expect(ids.size).toBe(48);
    // 24 × 2 texts of 4 MB were seen: remembering them would hold ~190 MB.
    expect(grownMb).toBeLessThan(40);
  });

  it('a short text is still remembered: the same id without hashing again', () => {
    const messages = [{ role: 'user', content: 'hello there' }];
    expect(messageIds(messages)).toEqual(messageIds([{ role: 'user', content: 'hello there' }]));
  });
});
