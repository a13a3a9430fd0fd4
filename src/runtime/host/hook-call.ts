import type { Hook } from '../../core/messages/hooks.js';
import { lastUserText } from '../../core/messages/last-user-message.js';
import type { Logger } from '../../core/util/logger.js';
import { describeFlags } from '../../domain/flags/describe-flags.js';
import type { ActiveFlags } from '../../domain/flags/types.js';
import type { Metrics } from '../metrics/metrics.js';
import { observeHook } from '../metrics/observe-hook.js';
import type { ActiveModule } from './module-registry.js';
import { noFlags, type FlagsHost } from './flags-host.js';
import { HookEvents } from './hook-events.js';
import { runHook } from './run-hook.js';
import type { FilterBody, FilterEvent, HostServices, PipelineUser } from './types.js';
import { targets, userValvesFor } from './user-valves.js';
import type { ValvesRepository } from './valves-repository.js';
import { withGroups, type UserGroups } from './open-webui-groups.js';

/**
 * Where the events of a call with no event channel of its own go (a Pipelines inlet: the protocol has none): kept
 * for the stream of the chat's model when that model is one of Eunoe's pipes (`pipe-status.ts`).
 */
export interface HeldEvents {
  hold(user: PipelineUser | null, model: unknown, body: FilterBody, events: readonly FilterEvent[]): Promise<void>;
  /** Whether events held for a chat of `model` reach its stream (the model is one of Eunoe's pipes). */
  reaches(model: unknown): boolean;
}

/** What running one hook needs from the host. */
export interface HookCallDeps {
  valves: ValvesRepository;
  services: HostServices;
  flags?: FlagsHost;
  hookTimeoutMs: number;
  metrics?: Metrics;
  /** Where the inlet events of a call without `emit` are kept (see HeldEvents); logged only when absent. */
  heldEvents?: HeldEvents;
  /**
   * Where a user's Open WebUI groups come from when the caller sent none (the Pipelines connection): hooks then see
   * `user.groups` (open-webui-groups.ts). Absent: hooks see the groups the caller sent, if any.
   */
  userGroups?: UserGroups;
}

/** One request's view of its hook calls: who, the request's log, its signal and its id. */
export interface HookCall {
  user: PipelineUser | null;
  /** The request's logger: each hook logs through a child naming the filter, the user, the chat and the hook. */
  logger: Logger;
  /** Aborted when the client goes away (the hook's own signal is also aborted at its deadline). */
  signal: AbortSignal;
  requestId: string;
  /**
   * Where the hooks' events go (the Function's answer, a pipe's stream). Absent: the request has no channel for
   * them; they are logged at debug and an inlet's are held for the chat's pipe stream (`HookCallDeps.heldEvents`).
   */
  emit?: (event: FilterEvent) => void;
}

/** The filter, user and chat ids of a hook call: its filter's log lines carry them, and the route's access line. */
export function hookLogFields(
  filter: string,
  user: PipelineUser | null,
  body: Record<string, unknown>,
): { filter: string; user?: string; chat?: string } {
  const metadata = body.metadata as Record<string, unknown> | undefined;
  const chat = (metadata && typeof metadata === 'object' ? metadata.chat_id : undefined) ?? body.chat_id;
  const userId = user?.id;
  return {
    filter,
    ...(typeof userId === 'string' || typeof userId === 'number' ? { user: String(userId) } : {}),
    ...(typeof chat === 'string' && chat !== '' ? { chat } : {}),
  };
}

/**
 * True when `hook` of `module` runs for a body naming `model`: a filter whose `pipelines` valve targets the model, a
 * pipe that defines the hook. Otherwise the body passes through unchanged.
 */
export function hookApplies(module: ActiveModule, hook: Hook, model: unknown): boolean {
  return module.kind === 'pipe' ? Boolean(module.definition[hook]) : targets(module, model);
}

/**
 * Reports this request's flags once (the first hook of the request that resolves them): the flags in force after a
 * `!flag` block typed this turn, and rejected values.
 */
function reportFlags(
  call: HookCall,
  emit: (event: FilterEvent) => void,
  before: FilterBody,
  after: FilterBody,
  flags: ActiveFlags,
): void {
  if (reported.has(call)) return;
  // Flag blocks are stripped from the newest user message: a change there means this turn typed one.
  const typed = lastUserText(before.messages ?? []) !== lastUserText(after.messages ?? []);
  if (!typed && flags.notices.length === 0) return;
  reported.add(call);
  if (typed) emit({ type: 'status', data: { description: describeFlags(flags), done: true } });
  if (flags.notices.length > 0)
    emit({ type: 'status', data: { description: `⚠ ${flags.notices.join(' · ')}`, done: true } });
}
const reported = new WeakSet<HookCall>();

/** The call's user with its groups (read once per call, whichever hook asks first). */
function callUser(deps: HookCallDeps, call: HookCall): Promise<PipelineUser | null> {
  if (!deps.userGroups || !call.user || Array.isArray(call.user.groups)) return Promise.resolve(call.user);
  let user = users.get(call);
  if (!user) {
    user = withGroups(call.user, deps.userGroups);
    users.set(call, user);
  }
  return user;
}
const users = new WeakMap<HookCall, Promise<PipelineUser | null>>();

/**
 * Runs one hook of one filter or pipe, the only way the host does: a module the hook does not apply to
 * (`hookApplies`) passes the body through; else the user's valves (`prepared`, or read for the call's user), the
 * `!flag` state (with the user's default flags, from the user valve the module names in `defaultFlagsValve`; only the inlet strips the flag blocks, since the outlet body is
 * what Open WebUI saves), the flags reported as a status event, then `runHook` (deadline, abort with the client,
 * errors as JSON errors) timed in the hook metrics. Events go to `call.emit`, or are logged and held (HookCall).
 */
export async function callHook(
  deps: HookCallDeps,
  module: ActiveModule,
  hook: Hook,
  received: FilterBody,
  call: HookCall,
  prepared?: Record<string, unknown>,
): Promise<FilterBody> {
  if (!hookApplies(module, hook, received.model)) return received;
  const user = await callUser(deps, call);
  const fields = hookLogFields(module.id, call.user, received);
  const logger = call.logger.child({ ...fields, hook });
  const userValves = prepared ?? (await userValvesFor(module, call.user, deps.valves, call.logger));
  const events = call.emit ? undefined : new HookEvents();
  const emit = call.emit ?? events!.emit;
  let body = received;
  let flags = noFlags();
  if (deps.flags) {
    const defaults = defaultFlags(module, userValves);
    const resolved = await deps.flags.resolve({ body, user, hook, defaults });
    flags = resolved.flags;
    if (hook === 'inlet') {
      reportFlags(call, emit, body, resolved.body, flags);
      body = resolved.body;
    }
  }
  const result = await observeHook(deps.metrics, module.id, hook, () =>
    runHook({
      filter: module,
      hook,
      timeoutMs: deps.hookTimeoutMs,
      parentSignal: call.signal,
      args: {
        body,
        user,
        valves: module.valves,
        userValves,
        logger,
        state: module.state,
        flags,
        services: deps.services,
        filterId: module.id,
        requestId: call.requestId,
        hook,
        emit,
        eventsReachUser: call.emit !== undefined || (hook === 'inlet' && deps.heldEvents?.reaches(body.model) === true),
      },
    }),
  );
  if (events && events.list.length > 0) await keep(deps, call, hook, body.model, result, events.list, logger);
  return result;
}

/** The user's default flag block: the user valve the module declares as `defaultFlagsValve`, when it holds text. */
function defaultFlags(module: ActiveModule, userValves: Record<string, unknown>): string | undefined {
  const name: string | undefined = module.definition.defaultFlagsValve;
  const value = name === undefined ? undefined : userValves[name];
  return typeof value === 'string' ? value : undefined;
}

/** The events of a call with no channel: logged, and an inlet's held for the chat's pipe stream. Never throws. */
async function keep(
  deps: HookCallDeps,
  call: HookCall,
  hook: Hook,
  model: unknown,
  result: FilterBody,
  events: readonly FilterEvent[],
  logger: Logger,
): Promise<void> {
  logger.debug({ events }, 'filter events');
  if (hook !== 'inlet' || !deps.heldEvents) return;
  await deps.heldEvents
    .hold(call.user, model, result, events)
    .catch((error: unknown) => logger.debug({ err: String(error) }, 'filter events not kept for the pipe stream'));
}
