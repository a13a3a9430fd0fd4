import type { Logger } from '../../core/util/logger.js';
import type { ActivePipe } from '../host/module-registry.js';
import type { HostServices } from '../host/types.js';
import type { ManifoldModel } from './types.js';
import { errorMessage } from '../../core/util/error-message.js';
import { servicesWithoutUser } from '../host/user-scoped-services.js';

/** Default life of a `models()` answer before a background refresh. */
export const DEFAULT_MODELS_TTL_MS = 60_000;

/** Longest wait for a manifold's first `models()` answer before `/models` answers without it. */
export const FIRST_WAIT_MS = 5_000;

interface Entry {
  models: ManifoldModel[];
  /** The valves object the list was built with: new valves (another upstream) mean a new list. */
  valves: unknown;
  loadedAt: number;
  refreshing?: Promise<ManifoldModel[]>;
}

/** The definition of a loaded pipe. */

/**
 * Caches each manifold's `models()`: the first request waits for it, later ones get the cached
 * list, and a list older than the TTL is served once more while a refresh runs in the
 * background (never one `models()` call per `/models`). A failing refresh keeps the last good
 * list; new valves (`onValvesUpdated`) or a reloaded file start a new list.
 */
export class ManifoldModels {
  private readonly entries = new WeakMap<ActivePipe, Entry>();

  constructor(
    private readonly options: { services: HostServices; logger: Logger; now?: () => number; firstWaitMs?: number },
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The children of a manifold pipe (`[]` for a plain pipe). */
  async get(pipe: ActivePipe): Promise<ManifoldModel[]> {
    const { models, modelsTtlMs } = pipe.definition;
    if (models === undefined) return [];
    if (Array.isArray(models)) return models;
    const entry = this.entries.get(pipe);
    if (!entry || entry.valves !== pipe.valves) return this.firstList(pipe, entry);
    const ttl = typeof modelsTtlMs === 'function' ? modelsTtlMs(pipe.valves) : modelsTtlMs;
    if (this.now() - entry.loadedAt >= (ttl ?? DEFAULT_MODELS_TTL_MS) && !entry.refreshing)
      void this.refresh(pipe, entry);
    return entry.models;
  }

  /** A new list: waited for, at most `firstWaitMs` (then `/models` goes on without it; it lands in the cache). */
  private async firstList(pipe: ActivePipe, entry: Entry | undefined): Promise<ManifoldModel[]> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.options.firstWaitMs ?? FIRST_WAIT_MS);
    });
    try {
      return (await Promise.race([this.refresh(pipe, entry), waited])) ?? [];
    } finally {
      clearTimeout(timer);
    }
  }

  private refresh(pipe: ActivePipe, previous: Entry | undefined): Promise<ManifoldModel[]> {
    if (previous?.refreshing && previous.valves === pipe.valves) return previous.refreshing;
    const valves = pipe.valves;
    const entry: Entry = previous?.valves === valves ? previous : { models: [], valves, loadedAt: 0 };
    const logger = this.options.logger.child({ pipe: pipe.id });
    entry.refreshing = (async () => {
      try {
        const listed = await (pipe.definition.models as (args: unknown) => unknown)({
          valves,
          logger,
          state: pipe.state,
          // No request, no user (like a lifecycle hook): models() writes no usage record and no hold.
          services: servicesWithoutUser(this.options.services),
          filterId: pipe.id,
        });
        if (!Array.isArray(listed)) throw new Error('models() must return an array of {id, name}');
        entry.models = listed.filter(
          (model): model is ManifoldModel => typeof model?.id === 'string' && model.id !== '',
        );
      } catch (error) {
        logger.warn({ err: errorMessage(error) }, 'manifold models() failed; keeping the last list');
      } finally {
        entry.loadedAt = this.now();
        entry.refreshing = undefined;
      }
      return entry.models;
    })();
    this.entries.set(pipe, entry);
    return entry.refreshing;
  }
}
