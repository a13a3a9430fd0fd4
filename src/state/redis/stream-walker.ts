import type { RedisCall } from './redis-stream-store.js';
import type { RedisKeys } from './redis-keys.js';
import { pageScript } from './redis-scripts.js';

/** Where a walk stands: the last score consumed and how many entries with that score were consumed. */
export interface WalkPosition {
  score: number;
  skip: number;
}

/**
 * Walks a stream's time index in either direction, `chunk` entries per round trip, without
 * offsets that grow with the stream: each page starts at the last score seen (inclusive)
 * and skips only the entries already consumed at that score. Entries with equal scores are
 * ordered by member (insertion number), so the skipped ones are exactly those seen.
 */
export class StreamWalker {
  private buffer: Array<{ score: number; seq: number; json: string | null }> = [];
  private lastSeq = 0;
  private exhausted = false;
  private position: WalkPosition | undefined;

  constructor(
    private readonly call: RedisCall,
    private readonly layout: RedisKeys,
    private readonly stream: string,
    private readonly direction: 'asc' | 'desc',
    /** ZRANGEBYSCORE bounds of the whole walk (e.g. `-inf`, `(1700000000000`). */
    private readonly min: string,
    private readonly max: string,
    private readonly chunk: number,
    start?: WalkPosition,
  ) {
    this.position = start;
  }

  /** The position after the last entry returned by `next` (for a cursor). */
  get at(): WalkPosition | undefined {
    return this.position && { ...this.position };
  }

  /** The insertion number of the entry `next` returned last. */
  get seq(): number {
    return this.lastSeq;
  }

  /** The next entry's JSON (null when its hash field is gone), or undefined at the end. */
  async next(): Promise<string | null | undefined> {
    if (this.buffer.length === 0 && !this.exhausted) await this.fill();
    const entry = this.buffer.shift();
    if (!entry) return undefined;
    this.lastSeq = entry.seq;
    if (this.position && this.position.score === entry.score) this.position.skip += 1;
    else this.position = { score: entry.score, skip: 1 };
    return entry.json;
  }

  /** True when the last fetched page was the final one and it has been consumed. */
  get done(): boolean {
    return this.exhausted && this.buffer.length === 0;
  }

  private async fill(): Promise<void> {
    const from = this.position;
    let min = this.min;
    let max = this.max;
    if (from && this.direction === 'asc') min = String(from.score);
    if (from && this.direction === 'desc') max = String(from.score);
    const flat = (await this.call('page', (client) =>
      pageScript.run(
        client,
        [this.layout.streamHash(this.stream), this.layout.streamIndex(this.stream)],
        [this.direction, min, max, from?.skip ?? 0, this.chunk],
      ),
    )) as Array<string | null>;
    for (let index = 0; index + 2 < flat.length; index += 3) {
      this.buffer.push({
        score: Number(flat[index]),
        seq: Number(String(flat[index + 1]).slice(0, 16)),
        json: flat[index + 2] ?? null,
      });
    }
    if (flat.length / 3 < this.chunk) this.exhausted = true;
  }
}
