import { FilterError } from '../../core/errors/filter-error.js';
import { EunoeError } from '../../core/errors/index.js';
import { discardBody } from '../../core/util/discard-body.js';
import { definePipe } from '../../runtime/pipes/define-pipe.js';
import { ReplyAssembler } from '../../runtime/pipes/reply-assembler.js';
import { SseFrames } from '../../runtime/pipes/sse-frames.js';
import type { PipeArgs } from '../../runtime/pipes/types.js';
import { accountReply } from './account-reply.js';
import { proxyValves, type ProxyValves } from './proxy-valves.js';
import { SseScanner, type ScannedPiece } from './sse-scanner.js';
import { upstreamBody } from './upstream-body.js';
import { proxyModels } from './upstream-models.js';
import { UpstreamPools } from './upstream.js';
import { errorMessage } from '../../core/util/error-message.js';

type ProxyArgs = PipeArgs<ProxyValves, Record<string, never>>;

/**
 * The upstream's stream, relayed piece by piece: each network piece's whole events go to the
 * client as the same bytes, in one write (`SseFrames`); each event is parsed once, for the reply
 * that is accounted. A provider error event ends the stream with an error event. The reply is
 * accounted after `[DONE]` went out (the client never waits for the ledger), or when the stream
 * fails or the client leaves (then estimated from the text so far).
 */
async function* relayStream(
  args: ProxyArgs,
  pools: UpstreamPools,
  request: Record<string, unknown>,
): AsyncGenerator<string | SseFrames> {
  const response = await pools.request(args.valves, '/chat/completions', {
    method: 'POST',
    body: request,
    signal: args.signal,
  });
  const reply = new ReplyAssembler();
  const scanner = new SseScanner();
  let done = false;
  try {
    let piece: ScannedPiece | undefined;
    // Leaving the loop must not destroy the body: after [DONE] its rest is read to free the connection.
    for await (const bytes of response.body.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>) {
      piece = scanner.push(bytes);
      if (yieldable(piece, reply)) yield new SseFrames(piece.bytes, piece.events, piece.finished);
      if (piece.error || piece.done) break;
      piece = undefined;
    }
    piece ??= scanner.end();
    if (!piece.done && !piece.error && yieldable(piece, reply))
      yield new SseFrames(piece.bytes, piece.events, piece.finished);
    if (piece.error) {
      const status = typeof piece.error.code === 'number' ? piece.error.code : 502;
      throw new FilterError(status, `upstream: ${String(piece.error.message ?? 'error')}`);
    }
    if (!piece.done && !reply.finishReason) throw new FilterError(502, 'upstream stream ended before it was complete');
    done = true;
    yield 'data: [DONE]';
  } catch (error) {
    if (error instanceof EunoeError || args.signal.aborted) throw error;
    throw new FilterError(502, `upstream stream failed: ${errorMessage(error) ?? error}`, { cause: error });
  } finally {
    // After [DONE], the (empty) rest is read so the keep-alive connection is free for the next call.
    if (done) void response.body.dump({ limit: 65_536 }).catch(() => undefined);
    else discardBody(response.body);
    // A cut or cancelled stream was (partly) billed upstream: it is recorded too, estimated from the text so far.
    await accountReply(args, reply);
  }
}

/** True when a scanned piece has events to send; its events are added to the reply. */
function yieldable(piece: ScannedPiece, reply: ReplyAssembler): boolean {
  for (const event of piece.events) reply.observe(event);
  return piece.events.length > 0;
}

/**
 * The `openai-proxy` manifold: forwards chats to any OpenAI-compatible upstream (OpenRouter by
 * default) and records the real usage of every call in the ledger. Each call makes an instance
 * with its own upstream connection pools, closed by its `onShutdown` only.
 */
export function createOpenAIProxy() {
  const pools = new UpstreamPools();
  return definePipe({
    name: 'Proxy: ',
    valves: proxyValves,
    modelsTtlMs: (valves) => valves.models_ttl_ms,
    models: ({ valves }) => proxyModels(valves, pools),
    onShutdown: () => pools.close(),
    async pipe(args) {
      const request = upstreamBody(args.body, args.modelId, args.stream, args.valves);
      if (args.stream) return relayStream(args as ProxyArgs, pools, request);
      const response = await pools.request(args.valves, '/chat/completions', {
        method: 'POST',
        body: request,
        signal: args.signal,
      });
      const completion = (await response.body.json()) as Record<string, unknown>;
      const reply = new ReplyAssembler();
      reply.observe(completion);
      await accountReply(args as ProxyArgs, reply);
      return completion;
    },
  });
}
