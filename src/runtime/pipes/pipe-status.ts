import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { cleanEvent, MAX_EVENTS } from '../host/hook-events.js';
import type { FilterBody, FilterEvent, PipelineUser } from '../host/types.js';
import type { ChatMessage } from '../../core/messages/chat-message.js';
import { lastUserMessage } from '../../core/messages/last-user-message.js';
import type { StateStore } from '../../state/types.js';
import type { ModuleRegistry } from '../host/module-registry.js';
import type { HeldEvents } from '../host/hook-call.js';
import { pipeOwning } from './pipe-catalog.js';
import { callerIsOpenWebui, headerSwitch } from './runs-filters.js';

/**
 * Whether a pipe's stream carries Open WebUI events (`{"event": {...}}` chunks, shown as the status
 * line). `X-Eunoe-Events: on|off` decides when sent; otherwise only when the body's `user` is an
 * object, which Open WebUI adds to every call of a Pipelines model (an OpenAI client sends a string
 * or nothing, and its SDK expects completion chunks only).
 */
export function wantsEvents(body: Record<string, unknown>, headers: IncomingHttpHeaders): boolean {
  return headerSwitch(headers, 'x-eunoe-events', 'on', 'off') ?? callerIsOpenWebui(body);
}

/** The model a body names is one of Eunoe's pipes (also behind an Open WebUI connection prefix, `prefix.model`). */
export function isPipeModel(registry: ModuleRegistry, model: unknown): boolean {
  if (typeof model !== 'string' || model === '') return false;
  if (pipeOwning(registry, model)) return true;
  const dot = model.indexOf('.');
  return dot > 0 && pipeOwning(registry, model.slice(dot + 1)) !== undefined;
}

/** The newest user message's content, the turn's key (Open WebUI changes neither between its inlet and the pipe call). */
function turnKey(user: PipelineUser | null, messages: readonly ChatMessage[] | undefined): string | undefined {
  const message = Array.isArray(messages) ? lastUserMessage(messages) : undefined;
  if (!user?.id || !message) return undefined;
  const digest = createHash('sha256')
    .update(JSON.stringify(message.content ?? ''))
    .digest('hex')
    .slice(0, 32);
  return `h:pipe-status:${String(user.id)}:${digest}`;
}

const STATUS_TTL_MS = 120_000;

/**
 * Hands the events of Open WebUI's filter calls (its Pipelines inlets, one HTTP call per filter) to
 * the pipe call of the same turn, in the state store so that replicas share them: posted by the
 * inlet routes under the user and the turn's newest user message, taken once by the pipe call.
 */
export class PipeStatusMailbox {
  constructor(
    private readonly store: StateStore,
    private readonly ttlMs = STATUS_TTL_MS,
  ) {}

  async post(user: PipelineUser | null, body: FilterBody, events: readonly FilterEvent[]): Promise<void> {
    const key = turnKey(user, body.messages);
    if (!key || events.length === 0) return;
    const held = await this.read(key);
    await this.store.set(key, [...held, ...events].slice(0, MAX_EVENTS), { ttlMs: this.ttlMs });
  }

  async take(user: PipelineUser | null, messages: readonly ChatMessage[] | undefined): Promise<FilterEvent[]> {
    const key = turnKey(user, messages);
    if (!key) return [];
    const held = await this.read(key);
    if (held.length > 0) await this.store.delete(key);
    return held;
  }

  private async read(key: string): Promise<FilterEvent[]> {
    const value = await this.store.get<unknown>(key);
    if (!Array.isArray(value)) return [];
    return value.map(cleanEvent).filter((event): event is FilterEvent => event !== undefined);
  }
}

/** The events of Open WebUI's Pipelines inlets held in `mailbox` when the chat's model is one of Eunoe's pipes. */
export function heldForPipeModels(mailbox: PipeStatusMailbox, registry: ModuleRegistry): HeldEvents {
  return {
    hold: (user, model, body, events) =>
      isPipeModel(registry, model) ? mailbox.post(user, body, events) : Promise.resolve(),
    reaches: (model) => isPipeModel(registry, model),
  };
}
