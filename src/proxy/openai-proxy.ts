import { FilterError } from '../errors/filter-error.js';
import { definePipe } from '../pipes/define-pipe.js';
import { ReplyAssembler } from '../pipes/reply-assembler.js';
import type { PipeArgs } from '../pipes/types.js';
import { accountReply } from './account-reply.js';
import { proxyValves, type ProxyValves } from './proxy-valves.js';
import { sseDataLines } from './sse-lines.js';
import { upstreamBody } from './upstream-body.js';
import { proxyModels } from './upstream-models.js';
import { closeUpstreams, upstreamRequest } from './upstream.js';

type ProxyArgs = PipeArgs<ProxyValves, Record<string, never>>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The upstream's stream, relayed line by line; the reply is accounted before `[DONE]` goes out. */
async function* relayStream(args: ProxyArgs, request: Record<string, unknown>): AsyncGenerator<string> {
  const response = await upstreamRequest(args.valves, '/chat/completions', {
    method: 'POST',
    body: request,
    signal: args.signal,
  });

  const reply = new ReplyAssembler();
  let done = false;
  try {
    for await (const line of sseDataLines(response.body)) {
      const data = line.slice(6);
      if (data === '[DONE]') {
        done = true;
        break;
      }
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        json = undefined;
      }
      if (isRecord(json)) {
        reply.observe(json);
        // A provider error in the middle of a stream (OpenRouter sends `{error: {code, message}}`).
        if (isRecord(json.error) && !(Array.isArray(json.choices) && json.choices.length)) {
          const status = typeof json.error.code === 'number' ? json.error.code : 502;
          throw new FilterError(status, `upstream: ${String(json.error.message ?? 'error')}`);
        }
      }
      yield line;
    }
  } catch (error) {
    // A cut or cancelled stream was (partly) billed upstream: record it, estimated from the text so far.
    await accountReply(args, reply);
    if (error instanceof FilterError || args.signal.aborted) throw error;
    throw new FilterError(502, `upstream stream failed: ${(error as Error)?.message ?? error}`, { cause: error });
  } finally {
    // After [DONE], read the (empty) rest so the keep-alive connection is free for the next call at once.
    if (done) await response.body.dump({ limit: 65_536 }).catch(() => undefined);
    else response.body.destroy();
  }
  await accountReply(args, reply);
  if (!done && !reply.finishReason) throw new FilterError(502, 'upstream stream ended before it was complete');
  yield 'data: [DONE]';
}

/**
 * The `openai-proxy` manifold: forwards chats to any OpenAI-compatible upstream (OpenRouter by
 * default) and records the real usage of every call in the ledger.
 */
export function createOpenAIProxy() {
  return definePipe({
    name: 'Proxy: ',
    valves: proxyValves,
    modelsTtlMs: 300_000,
    models: ({ valves }) => proxyModels(valves),
    onShutdown: () => closeUpstreams(),
    async pipe(args) {
      const request = upstreamBody(args.body, args.modelId, args.stream, args.valves);
      if (args.stream) return relayStream(args as ProxyArgs, request);
      const response = await upstreamRequest(args.valves, '/chat/completions', {
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
