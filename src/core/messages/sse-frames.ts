/**
 * A piece of an SSE stream that is already framed: whole `data: …\n\n` events (comments and
 * other fields included), as a relaying pipe received them. It is written to the client as it
 * is, bytes not re-encoded, in one write, instead of one event at a time. `events` holds the
 * parsed JSON of its `data` events (for the reply that outlet filters see); `finished` is true
 * when one of them carried a `finish_reason`. It must not hold `data: [DONE]` (yield that on its
 * own, so additions can go before it).
 */
export class SseFrames {
  constructor(
    readonly bytes: Uint8Array | string,
    readonly events: readonly Record<string, unknown>[],
    readonly finished = false,
  ) {}
}
