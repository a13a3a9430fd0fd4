import { randomUUID } from 'node:crypto';
import type { ActiveFilter, ActiveModule, ActivePipe, ModuleRegistry } from '../host/module-registry.js';
import { callHook, type HookCall, type HookCallDeps } from '../host/hook-call.js';
import { targets, userValvesFor } from '../host/user-valves.js';
import type { FilterBody } from '../host/types.js';
import type { ChatMessage } from '../../core/messages/chat-message.js';
import { HOOKS, type Hook } from '../../core/messages/hooks.js';
import { loadedFilters } from './pipe-catalog.js';
import type { ReplyAssembler } from './reply-assembler.js';
import { errorMessage } from '../../core/util/error-message.js';

/** What running filters around a pipe needs from the host. */
export interface FilterChainDeps extends HookCallDeps {
  registry: ModuleRegistry;
}

/** The filters that target `model`, in ascending priority (the order Open WebUI runs them in, both hooks). */
function chainFor(registry: ModuleRegistry, model: unknown): ActiveFilter[] {
  return loadedFilters(registry).filter((filter) => targets(filter, model));
}

/** What the Open WebUI Function asks of one chain run: which filters, and the user's valves per filter. */
export interface FunctionChainOptions {
  /** Filter ids to run (of those targeting the model); all of them when absent. */
  only?: ReadonlySet<string>;
  /** Request-time user valves by filter id (validated strictly: see userValvesFor). */
  userValves?: Readonly<Record<string, Record<string, unknown>>>;
}

/**
 * One hook over the filters that target the body's model, by priority (Open WebUI's order), as
 * Eunoe's Open WebUI Function asks for it. Every filter's user valves are validated before any hook
 * runs (a bad value: a 400 and nothing applied). An inlet error propagates (a spend limit's 429); a
 * failing outlet is logged and skipped, so the filters after it (accounting) still see the reply.
 */
export async function runFunctionChain(
  deps: FilterChainDeps,
  hook: Hook,
  body: FilterBody,
  call: HookCall,
  options: FunctionChainOptions = {},
): Promise<FilterBody> {
  const filters = chainFor(deps.registry, body.model).filter((filter) => !options.only || options.only.has(filter.id));
  const prepared = await Promise.all(
    filters.map((filter) =>
      userValvesFor(filter, call.user, deps.valves, call.logger, options.userValves?.[filter.id] ?? {}),
    ),
  );
  return runSequence(deps, filters, hook, body, call, prepared);
}

/**
 * `hook` of each module in turn, each getting the previous one's body (with its prepared user valves, when given).
 * An inlet error propagates; a failing outlet is logged and skipped.
 */
async function runSequence(
  deps: FilterChainDeps,
  modules: readonly ActiveModule[],
  hook: Hook,
  body: FilterBody,
  call: HookCall,
  prepared?: readonly Record<string, unknown>[],
): Promise<FilterBody> {
  let current = body;
  for (const [index, module] of modules.entries()) {
    if (hook === 'inlet') {
      current = await callHook(deps, module, hook, current, call, prepared?.[index]);
      continue;
    }
    try {
      current = await callHook(deps, module, hook, current, call, prepared?.[index]);
    } catch (error) {
      call.logger.warn(
        { filter: module.id, err: errorMessage(error) },
        'outlet filter failed; the next ones still run',
      );
    }
  }
  return current;
}

/** True when the pipe defines its own `inlet` or `outlet` hook. */
const hasOwnHooks = (pipe: ActivePipe | undefined): boolean =>
  Boolean(pipe && HOOKS.some((hook) => pipe.definition[hook]));

/** True when some filter targets `model`, or the pipe has hooks of its own (else there is no chain to run). */
export function hasFilterChain(registry: ModuleRegistry, model: unknown, pipe?: ActivePipe): boolean {
  return hasOwnHooks(pipe) || chainFor(registry, model).length > 0;
}

/**
 * Inlet hooks for a direct caller, as Open WebUI runs them: every filter targeting the model, by
 * priority, then the pipe's own `inlet` last, each getting the previous one's body. An error (a
 * spend limit's 429) propagates: the pipe is not called.
 */
export async function runInletChain(
  deps: FilterChainDeps,
  body: FilterBody,
  call: HookCall,
  pipe?: ActivePipe,
): Promise<FilterBody> {
  const modules: ActiveModule[] = chainFor(deps.registry, body.model);
  if (pipe?.definition.inlet) modules.push(pipe);
  return runSequence(deps, modules, 'inlet', body, call);
}

/**
 * Outlet hooks on the assembled reply: the body Open WebUI would send (the request's messages,
 * then the reply with its `usage`, a fresh message id) goes to the pipe's own `outlet` first, then
 * to the filters by priority (Open WebUI's order); each sees the reply as the previous ones left it. Returns
 * what each outlet appended to the reply it was given (e.g. a context note, then the usage line), in that
 * order, to send before `[DONE]`. The client already has the reply, so an outlet that rewrites it (its reply
 * does not start with the one it was given) changes what later outlets see, not what is sent: the lines
 * appended after it are still sent. An outlet that fails is logged and skipped, as Open WebUI does.
 */
export async function runOutletChain(
  deps: FilterChainDeps,
  body: FilterBody,
  reply: ReplyAssembler,
  call: HookCall,
  pipe?: ActivePipe,
): Promise<string | undefined> {
  const filters: ActiveModule[] = chainFor(deps.registry, body.model);
  if (pipe?.definition.outlet) filters.unshift(pipe);
  if (!filters.length) return undefined;
  const id = `eunoe-${randomUUID()}`;
  const assistant: ChatMessage = {
    id,
    role: 'assistant',
    content: reply.content,
    ...(reply.usage ? { usage: reply.usage } : {}),
  };
  let current: FilterBody = {
    model: body.model,
    messages: [...(body.messages ?? []), assistant],
    id,
    ...(typeof body.chat_id === 'string' ? { chat_id: body.chat_id } : {}),
  };
  let appended = '';
  for (const filter of filters) {
    const before = replyText(current);
    try {
      current = await callHook(deps, filter, 'outlet', current, call);
    } catch (error) {
      call.logger.warn({ filter: filter.id, err: errorMessage(error) }, 'outlet filter failed on a pipe reply');
      continue;
    }
    const after = replyText(current);
    if (after === undefined || after === before) continue;
    if (before !== undefined && after.startsWith(before)) appended += after.slice(before.length);
    else call.logger.debug({ filter: filter.id }, 'outlet rewrote a pipe reply already sent (later outlets see it)');
  }
  return appended || undefined;
}

/** The text of the reply (the last message) of an outlet body, when it is text. */
function replyText(body: FilterBody): string | undefined {
  const last = body.messages?.at(-1);
  return typeof last?.content === 'string' ? last.content : undefined;
}
