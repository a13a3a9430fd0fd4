import { z } from 'zod';
import type { AnyValvesSchema, FilterBody, FilterDefinition, HookArgs, LifecycleArgs } from '../types.js';
import type { LoadedFilter } from '../load-filter-file.js';
import { FilterWorker, type FilterWorkerOptions } from './filter-worker.js';
import { flagsSnapshot } from './worker-proxies.js';
import { isRequestHook } from '../../../core/messages/hooks.js';

type Definition = FilterDefinition<AnyValvesSchema, AnyValvesSchema | undefined>;

/** The clonable part of a hook's arguments. */
function hookData(args: HookArgs<unknown, unknown>): Record<string, unknown> {
  return {
    body: args.body,
    user: args.user,
    valves: args.valves,
    userValves: args.userValves,
    flags: flagsSnapshot(args.flags),
    filterId: args.filterId,
    requestId: args.requestId,
    hook: args.hook,
    deadline: args.deadline,
    eventsReachUser: args.eventsReachUser,
  };
}

/** A definition whose hooks run in `worker`: the registry and runHook use it like any other. */
function proxyDefinition(worker: FilterWorker, lifecycleLimitMs: number): Definition {
  const { metadata } = worker;
  const definition: Record<string, unknown> = {
    id: metadata.id,
    name: metadata.name,
    flags: metadata.flags,
    defaultFlagsValve: metadata.defaultFlagsValve,
  };
  for (const hook of metadata.hooks) {
    if (isRequestHook(hook)) {
      definition[hook] = (args: HookArgs<unknown, unknown>) =>
        worker.call(hook, hookData(args), args, { signal: args.signal }) as Promise<FilterBody>;
    } else {
      definition[hook] = (args: LifecycleArgs<unknown>) =>
        worker.call(hook, { valves: args.valves, filterId: args.filterId }, args, { timeLimitMs: lifecycleLimitMs });
    }
  }
  return definition as Definition;
}

/**
 * Import `file` in a worker thread and describe it as a LoadedFilter whose hooks run there.
 * Valves are validated on the host with schemas rebuilt from the worker's JSON Schema (types,
 * enums, bounds and defaults; custom refinements and transforms stay in the worker). A pipe
 * answers `pipe`: its worker is closed (pipes run in the main thread; the import proved it loads in time).
 */
export async function loadIsolated(options: FilterWorkerOptions): Promise<LoadedFilter | 'pipe'> {
  const worker = await FilterWorker.start(options);
  const { metadata } = worker;
  if (metadata.kind === 'pipe') {
    await worker.close();
    return 'pipe';
  }
  const schema = (json: Record<string, unknown>) => z.fromJSONSchema(json) as AnyValvesSchema;
  return {
    id: metadata.id,
    name: metadata.name,
    file: options.file,
    definition: proxyDefinition(worker, options.loadTimeoutMs),
    valvesSchema: schema(metadata.valvesJsonSchema),
    valvesSpec: metadata.valvesSpec,
    userValvesSchema: metadata.userValvesJsonSchema ? schema(metadata.userValvesJsonSchema) : undefined,
    userValvesSpec: metadata.userValvesSpec,
    kind: 'filter',
    isolation: 'worker',
    ready: () => worker.ready().then(() => undefined),
    release: () => worker.close(),
  };
}

/** Import `file` in a throwaway worker to prove it loads in time (before the main thread imports it). */
export async function probeImport(options: FilterWorkerOptions): Promise<void> {
  const worker = await FilterWorker.start(options);
  await worker.close();
}
