import { FlagRegistry } from '../../../src/domain/flags/flag-registry.js';
import { resolveFlags } from '../../../src/runtime/flags/resolve-flags.js';
import type { ActiveFlags } from '../../../src/domain/flags/types.js';
import type { FilterBody } from '../../../src/runtime/host/types.js';
import type { ChatMessage } from '../../../src/core/messages/chat-message.js';
import type { StateStore } from '../../../src/state/types.js';
import { silentLogger } from '../../../src/core/util/logger.js';

/** A chat message as Open WebUI sends it. */
export type { ChatMessage };

/** Options shared by the turns of a simulated chat. */
export interface ChatOptions {
  store: StateStore;
  chatId?: string;
  registry?: FlagRegistry;
  ttlMs?: number;
  defaults?: string;
  timeoutMs?: number;
}

/** An inlet body as Open WebUI sends it: the whole history every turn, chat id in metadata. */
export function inletBody(messages: ChatMessage[], chatId = 'chat-1'): FilterBody {
  return { model: 'gpt-test', stream: true, messages, metadata: { chat_id: chatId, user_id: 'u1' } };
}

/** An outlet body: the history plus the reply, chat id at the top level, no metadata. */
export function outletBody(messages: ChatMessage[], chatId = 'chat-1'): FilterBody {
  return { model: 'gpt-test', messages, chat_id: chatId, session_id: 's', id: 'reply-1' };
}

/** Run resolveFlags for one hook. */
export function resolve(options: ChatOptions, body: FilterBody, hook: 'inlet' | 'outlet' = 'inlet') {
  return resolveFlags({
    body,
    user: { id: 'u1' },
    registry: options.registry ?? new FlagRegistry(),
    store: options.store,
    hook,
    ttlMs: options.ttlMs ?? 60_000,
    logger: silentLogger(),
    ...(options.defaults === undefined ? {} : { defaults: options.defaults }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/**
 * A chat driven the way Open WebUI drives it: each `say` appends a user message, sends the
 * whole raw history to the inlet, then appends an assistant reply.
 */
export class SimulatedChat {
  readonly history: ChatMessage[] = [];
  constructor(private readonly options: ChatOptions) {}

  /** One user turn; returns what the inlet resolved. */
  async say(content: ChatMessage['content']): Promise<{ flags: ActiveFlags; body: FilterBody }> {
    this.history.push({ role: 'user', content });
    const result = await resolve(this.options, inletBody([...this.history], this.options.chatId));
    this.history.push({ role: 'assistant', content: `reply ${this.history.length}` });
    return result;
  }

  /** Send the current history again (e.g. a regenerate, or the next request after an edit). */
  resend(): Promise<{ flags: ActiveFlags; body: FilterBody }> {
    return resolve(this.options, inletBody([...this.history], this.options.chatId));
  }
}
