import { EunoeError, FilterExecutionError, FilterTimeoutError } from '../../core/errors/index.js';
import type { FilterBody, HookArgs } from './types.js';
import type { ActiveModule } from './module-registry.js';
import { servicesForUser } from './user-scoped-services.js';
import type { Hook } from '../../core/messages/hooks.js';

/**
 * Run a filter's inlet or outlet with a deadline. A hook that throws becomes a JSON error
 * (its own status when it threw a EunoeError/FilterError, else 500 naming the filter and the hook, with its message); one
 * that runs past `timeoutMs` becomes 504 and its signal is aborted; one that returns no
 * object body becomes 500 with a clear detail. The hook's services write money for its own user only
 * (user-scoped-services.ts), in the main thread and in a worker alike (a worker's calls run on these).
 */
export async function runHook(options: {
  filter: ActiveModule;
  hook: Hook;
  args: Omit<HookArgs<unknown, unknown>, 'signal' | 'deadline'>;
  timeoutMs: number;
  /** Aborted when the client goes away. */
  parentSignal?: AbortSignal;
}): Promise<FilterBody> {
  const { filter, hook, args, timeoutMs } = options;
  const fn = filter.definition[hook] as ((hookArgs: HookArgs<unknown, unknown>) => unknown) | undefined;
  if (!fn) return args.body;
  // An isolated filter whose worker is being replaced: its start-up (bounded by
  // FILTER_LOAD_TIMEOUT_MS) does not count against the hook's deadline.
  await filter.ready?.();
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(options.parentSignal?.reason);
  options.parentSignal?.addEventListener('abort', onParentAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new FilterTimeoutError(filter.id, hook, timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    const hookDeadline = Date.now() + timeoutMs;
    const services = servicesForUser(args.services, args.user);
    const result = await Promise.race([
      Promise.resolve().then(() => fn({ ...args, services, signal: controller.signal, deadline: hookDeadline })),
      deadline,
    ]);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw new FilterExecutionError(
        filter.id,
        hook,
        `Filter ${filter.id} ${hook} returned no body (it must return the body object)`,
      );
    }
    return result as FilterBody;
  } catch (error) {
    if (error instanceof EunoeError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    // The answer names the filter: a 500 in a chain of filters otherwise says only what went wrong, not where.
    const failed = new FilterExecutionError(
      filter.id,
      hook,
      `Filter ${filter.id} ${hook} failed${message ? `: ${message}` : ''}`,
      { cause: error },
    );
    // The logs show where the filter threw (its file and line), not only where the host caught it.
    if (error instanceof Error && error.stack) failed.stack = `${failed.stack}\nCaused by: ${error.stack}`;
    throw failed;
  } finally {
    clearTimeout(timer);
    options.parentSignal?.removeEventListener('abort', onParentAbort);
  }
}
