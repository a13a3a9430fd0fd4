import { HOOKS } from '../../../core/messages/hooks.js';
import type { Logger } from '../../../core/util/logger.js';
import type { FilterBody, FilterDefinition, AnyValvesSchema, HookArgs, LifecycleArgs } from '../types.js';
import type { LoadedFilter } from '../load-filter-file.js';

type Definition = FilterDefinition<AnyValvesSchema, AnyValvesSchema | undefined>;

/**
 * Past these a chat's hooks run in the filter's worker thread: a filter whose work grows with the chat (the context
 * filter counts, scores and plans every message) would hold the server's event loop for seconds with the largest
 * chats the default limits accept (10,000 messages, 48 MB), while in a worker each call costs a structured clone of
 * the body each way and a message round trip for each state or service call (+0.7–3.7 ms, about half of a warm
 * context inlet of 20–200 messages, and more with a chat of 2,000: npm run bench:inlet's warm HTTP row went from 11 to
 * 17 ms through the worker). Up to 5,000 messages and 1 Mi characters of text, the context filter plans a chat in the
 * main thread in at most about 0.3 s on a 2-core machine, cold, with text of words it has never seen (1 Mi characters
 * in 5,000 messages: 277 ms; 256 Ki in 1,000: 171 ms, the tokenizer's load included), so chats of that size stay there.
 */
export const WORKER_BODY_MESSAGES = 5_000;
export const WORKER_BODY_CHARACTERS = 1_048_576;

/** Characters of a message's text: a string content, or the text of its parts. */
function textLength(message: unknown): number {
  if (message === null || typeof message !== 'object') return 0;
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content.length;
  let length = 0;
  if (Array.isArray(content))
    for (const part of content) {
      const text = part !== null && typeof part === 'object' ? (part as { text?: unknown }).text : undefined;
      if (typeof text === 'string') length += text.length;
    }
  return length;
}

/** True when a hook's body is a chat large enough to run in the worker (a walk over its messages, no copy). */
export function isLargeBody(body: FilterBody): boolean {
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return false;
  if (messages.length > WORKER_BODY_MESSAGES) return true;
  let characters = 0;
  for (const message of messages) {
    characters += textLength(message);
    if (characters > WORKER_BODY_CHARACTERS) return true;
  }
  return false;
}

/**
 * A shipped filter loaded in the main thread whose large chats run in a worker thread of its own, started on the
 * first such chat: the main thread keeps ordinary chats at main-thread speed, and a large one cannot hold the
 * event loop. Both copies keep what outlives a call in the state store; what each holds in memory (caches) is its
 * own. The worker gets the lifecycle hooks the main thread got (onStartup with the valves in force when it starts,
 * onValvesUpdated, onShutdown); when it cannot start, the large chat's call fails and the next one starts it again.
 */
export function routeLargeBodiesToWorker(
  main: LoadedFilter,
  startWorker: () => Promise<LoadedFilter | 'pipe'>,
  logger: Logger,
): LoadedFilter {
  const inMain = main.definition;
  let started: Promise<Definition | undefined> | undefined;
  let running: Definition | undefined;
  /** The arguments of the last lifecycle hook while the filter is started (replayed as the worker's onStartup). */
  let lifecycle: LifecycleArgs<unknown> | undefined;

  const worker = (): Promise<Definition | undefined> => {
    started ??= (async () => {
      const loaded = await startWorker();
      if (loaded === 'pipe') return undefined;
      if (lifecycle) await loaded.definition.onStartup?.(lifecycle as never);
      running = loaded.definition;
      release = loaded.release;
      return running;
    })().catch((error: unknown) => {
      // The call fails (a 500 naming the filter, as any worker that cannot start); the next large chat tries again.
      started = undefined;
      logger.error({ filter: main.id, err: (error as Error).message }, 'filter worker for large chats did not start');
      throw error;
    });
    return started;
  };
  let release: (() => Promise<void>) | undefined;

  const definition: Record<string, unknown> = { ...inMain };
  for (const hook of HOOKS) {
    const own = inMain[hook];
    if (!own) continue;
    definition[hook] = async (args: HookArgs<never, never>): Promise<FilterBody> => {
      const isolated = isLargeBody(args.body) ? (await worker())?.[hook] : undefined;
      return isolated ? isolated(args) : own(args);
    };
  }
  if (inMain.onStartup)
    definition.onStartup = async (args: LifecycleArgs<never>) => {
      lifecycle = args;
      await inMain.onStartup?.(args);
      await running?.onStartup?.(args);
    };
  if (inMain.onValvesUpdated)
    definition.onValvesUpdated = async (args: LifecycleArgs<never>) => {
      if (lifecycle) lifecycle = args;
      await inMain.onValvesUpdated?.(args);
      await running?.onValvesUpdated?.(args);
    };
  if (inMain.onShutdown)
    definition.onShutdown = async (args: LifecycleArgs<never>) => {
      lifecycle = undefined;
      await inMain.onShutdown?.(args);
      await running?.onShutdown?.(args);
    };
  return {
    ...main,
    definition: definition as Definition,
    release: async () => {
      await main.release?.();
      await release?.();
    },
  };
}
