import { z } from 'zod';
import type { Logger } from '../../core/util/logger.js';
import type { ScopedState } from '../../state/scoped-state.js';
import type { ActiveFlags, FlagSpec } from '../../domain/flags/types.js';
import type { PricingLookup } from '../../domain/pricing/types.js';
import type { Ledger, TokenCorrections } from '../../domain/usage/types.js';
import type { FilterBody, PipelineUser } from '../../core/messages/request.js';
import type { SpendHolds } from '../../domain/usage/spend-reservations.js';
import type { Hook } from '../../core/messages/hooks.js';

/**
 * Valves every filter has. `pipelines` lists the model ids the filter applies to
 * (`["*"]` = all models); `priority` orders filters, lower runs first.
 */
export const baseValves = z.object({
  pipelines: z.array(z.string()).default(['*']).describe('Model ids this filter applies to; "*" means every model.'),
  priority: z.number().int().default(0).describe('Filters run in ascending priority.'),
});

export type AnyValvesSchema = z.ZodObject<z.ZodRawShape>;

export type { FilterBody, PipelineUser } from '../../core/messages/request.js';

/** Services the host offers to filters, and those features provide. Any of them may be absent; filters degrade. */
export interface HostServices {
  pricing?: PricingLookup;
  ledger?: Ledger;
  /** Spend holds: the spend-limit inlet reserves an estimate against the caps, recording the reply releases it. */
  spend?: SpendHolds;
  corrections?: TokenCorrections;
  /**
   * Work a request leaves running after its answer went out (the proxy's ledger write after
   * `[DONE]`): shutdown waits for what is tracked here (at most 5 s) before the store closes.
   */
  pending?: { track(work: Promise<unknown>): void };
  /**
   * What features provide, by key name (src/runtime/host/service-registry.ts): read one with
   * `provided(services, key)`, never by name.
   */
  provided?: Readonly<Record<string, object>>;
}

/** What every call of a filter's hooks or a pipe carries: who asks, with which valves, and the host's services. */
export interface RequestArgs<V, U> {
  body: FilterBody;
  user: PipelineUser | null;
  valves: V;
  /** The user's own values merged over the user-valve defaults (`{}` when the filter or pipe has none). */
  userValves: U;
  logger: Logger;
  /** Aborted when the call times out or the client goes away (pass it to upstream requests). */
  signal: AbortSignal;
  /** This filter's or pipe's own namespace in the state store. */
  state: ScopedState;
  services: HostServices;
  requestId: string;
}

/**
 * What a hook reports to the person in the chat, in Open WebUI's event shape: a `status` is the line
 * above the reply, a `notification` a toast. Eunoe's Open WebUI Function and the streams of Eunoe's own
 * pipes carry them to Open WebUI; a Pipelines filter call has no channel for them (they are logged at debug).
 */
export type FilterEvent =
  | { type: 'status'; data: { description: string; done?: boolean; hidden?: boolean } }
  | { type: 'notification'; data: { type: 'info' | 'success' | 'warning' | 'error'; content: string } };

/** The single argument of `inlet` and `outlet`. New fields are added here, never as positional arguments. */
export interface HookArgs<V, U> extends RequestArgs<V, U> {
  /** Report what the hook did (see FilterEvent). Never throws; events past the per-call limit are dropped. */
  emit(event: FilterEvent): void;
  /**
   * Whether `emit`'s events reach the person in the chat: the generated Function's answer and a pipe's stream carry
   * them, and a Pipelines inlet's are held for the chat's stream when its model is one of Eunoe's pipes. False
   * otherwise (a Pipelines outlet: they are only logged): skip work done only to report.
   */
  eventsReachUser: boolean;
  /** Inline `!flag` state for this chat and turn. */
  flags: ActiveFlags;
  filterId: string;
  /** Epoch ms when the host answers 504 for this hook (`HOOK_TIMEOUT_MS`): slow work should stop before it. */
  deadline: number;
  hook: Hook;
}

/** Argument of `onStartup`, `onShutdown` and `onValvesUpdated`. */
export interface LifecycleArgs<V> {
  valves: V;
  logger: Logger;
  state: ScopedState;
  services: HostServices;
  filterId: string;
}

type Infer<S> = S extends z.ZodType ? z.infer<S> : Record<string, never>;

/** What a filter file's default export describes. Every hook is optional. */
export interface FilterDefinition<
  V extends AnyValvesSchema = AnyValvesSchema,
  U extends AnyValvesSchema | undefined = undefined,
> {
  /** Defaults to the file's stem. */
  id?: string;
  /** Display name; defaults to the id. */
  name?: string;
  /** Admin valves; must extend `baseValves` (`baseValves.extend({...})`). Every field needs a default. */
  valves?: V;
  /** Per-user valves; every field needs a default. */
  userValves?: U;
  /** Flags this filter registers for the `!flag` grammar. */
  flags?: FlagSpec[];
  /**
   * The user valve (a string field of `userValves`) holding the user's default `!flag` block, applied to every chat
   * of theirs before the chat's own flags (the context filter's `default_flags`). None: no per-user defaults.
   */
  defaultFlagsValve?: U extends AnyValvesSchema ? Extract<keyof z.infer<U>, string> : never;
  inlet?(args: HookArgs<Infer<V>, Infer<U>>): FilterBody | Promise<FilterBody>;
  outlet?(args: HookArgs<Infer<V>, Infer<U>>): FilterBody | Promise<FilterBody>;
  onStartup?(args: LifecycleArgs<Infer<V>>): void | Promise<void>;
  onShutdown?(args: LifecycleArgs<Infer<V>>): void | Promise<void>;
  onValvesUpdated?(args: LifecycleArgs<Infer<V>>): void | Promise<void>;
}
