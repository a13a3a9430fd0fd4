import { createHash } from 'node:crypto';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../util/logger.js';
import type { StateStore } from '../state/types.js';
import { ScopedState } from '../state/scoped-state.js';
import type { FlagSpec } from '../flags/types.js';
import type { HostServices, LifecycleArgs } from './types.js';
import { kindOfSource, moduleTypeOf, type DeclaredKind } from './declared-kind.js';
import { FilterLoadError, fileStem, isFilterFileName, loadFilterFile, type LoadedModule } from './load-filter-file.js';
import { EunoeError, FilterExecutionError } from '../errors/index.js';
import { mergeSavedValves } from './coerce-valves.js';
import type { ValvesRepository } from './valves-repository.js';
import { listFilterFiles, originOf, shippedTwin, type FilterOrigin, type FilterSources } from './filter-sources.js';

/** A loaded, started filter with its current admin valves. */
export interface ActiveFilter extends LoadedModule {
  valves: Record<string, unknown> & { pipelines: string[]; priority: number };
  state: ScopedState;
}

/** A file that failed to load or start; listed by GET /pipelines. */
export interface FailedFilter {
  id: string;
  file: string;
  error: string;
  line?: number;
  /** `package` (shipped with Eunoe) or `user` (the filters folder). */
  origin?: FilterOrigin;
  /** What the file declares itself to be (`unknown` when a broken file does not tell). */
  kind: DeclaredKind;
}

export interface FilterRegistryOptions {
  dir: string;
  store: StateStore;
  valves: ValvesRepository;
  services: HostServices;
  logger: Logger;
  /** Debounce for file-change reloads. */
  debounceMs?: number;
  /** Loads one file (default: import it in this thread); see src/host/isolation. */
  load?: (file: string) => Promise<LoadedModule>;
  /** The package's shipped filters to load besides `dir` (`dir` overrides them by file stem or id). */
  shipped?: { dir: string; files: readonly string[] };
  /** Called when a filter's registered flags appear (specs) or go away (undefined). */
  onFlags?: (filterId: string, specs: FlagSpec[] | undefined) => void;
}

/**
 * Holds every filter from the filters directory: loads them in isolation (a broken file
 * never stops the others), runs lifecycle hooks in order, reloads on change.
 */
export class FilterRegistry {
  private readonly active = new Map<string, ActiveFilter>();
  private readonly failed = new Map<string, FailedFilter>();
  private watcher?: FSWatcher;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private queue: Promise<void> = Promise.resolve();
  /** Jobs queued by `serial` and not yet finished. */
  private pendingJobs = 0;
  /** While loadAll imports, requests are still served by the previous filters. */
  private importing?: Map<string, ActiveFilter>;
  /** Content hash of each file as last loaded, so a watcher event for an unchanged file does nothing. */
  private readonly fingerprints = new Map<string, string>();

  /** True once the first loadAll has finished (GET /readyz). */
  loaded = false;

  constructor(private readonly options: FilterRegistryOptions) {}

  /** Active filters (and pipes: `kind`) in ascending priority (ties by id). Pipes have no priority: 0. */
  list(): ActiveFilter[] {
    const priority = (filter: ActiveFilter) => filter.valves.priority ?? 0;
    return [...(this.importing ?? this.active).values()].sort(
      (a, b) => priority(a) - priority(b) || a.id.localeCompare(b.id),
    );
  }
  failures(): FailedFilter[] {
    return [...this.failed.values()].sort((a, b) => a.id.localeCompare(b.id));
  }
  get(id: string): ActiveFilter | undefined {
    return this.importing?.get(id) ?? this.active.get(id);
  }
  /** The failure recorded for an id, if that file failed. */
  failure(id: string): FailedFilter | undefined {
    return [...this.failed.values()].find((entry) => entry.id === id);
  }

  /** Filter files to load: the user's folder (sorted), then the shipped files it does not override. */
  files(): string[] {
    const { files, overridden } = listFilterFiles(this.sources());
    for (const file of overridden)
      this.options.logger.info(
        { file },
        `shipped filter ${fileStem(file)} is overridden by a file in the filters folder`,
      );
    return files;
  }

  /** Where a loaded or failed file comes from (`package`: shipped with Eunoe; `user`: the filters folder). */
  origin(file: string): FilterOrigin {
    return originOf(this.sources(), path.isAbsolute(file) ? file : path.join(this.options.dir, file));
  }

  private sources(): FilterSources {
    return { userDir: this.options.dir, packageDir: this.options.shipped?.dir, shipped: this.options.shipped?.files };
  }

  /** Serialise every load/unload so hooks never interleave. */
  private serial<T>(job: () => Promise<T>): Promise<T> {
    this.pendingJobs++;
    const run = this.queue.then(job, job);
    this.queue = run.then(
      () => {
        this.pendingJobs--;
      },
      () => {
        this.pendingJobs--;
      },
    );
    return run;
  }

  /**
   * The filter for a request. While a reload or swap is under way the request waits for it
   * (at most `maxWaitMs`), so it is neither answered 404 nor served by a filter that is half
   * shut down or not yet started.
   */
  async acquire(id: string, maxWaitMs = 10_000): Promise<ActiveFilter | undefined> {
    if (this.pendingJobs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.queue, new Promise((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
      clearTimeout(timer);
    }
    return this.get(id);
  }

  /**
   * (Re)load every file: import the new set first (the old filters keep serving meanwhile),
   * then swap (the new set serves), shut the old ones down and start the new ones in priority order.
   */
  loadAll(): Promise<void> {
    return this.serial(async () => {
      const previous = this.list();
      const previousById = new Map(this.active);
      this.active.clear();
      this.failed.clear();
      this.importing = previousById;
      try {
        for (const file of this.files()) await this.importOne(file);
      } finally {
        this.importing = undefined;
      }
      // The new filters serve from here on; the previous ones are shut down after (never a moment with neither).
      for (const filter of previous) await this.shutdown(filter, this.active.has(filter.id));
      for (const filter of this.list()) await this.startup(filter);
      this.loaded = true;
    });
  }

  /** Reload one file after it changed, appeared or disappeared. */
  reloadFile(file: string): Promise<void> {
    return this.serial(async () => {
      const previous = [...this.active.values()].find((filter) => filter.file === file);
      if (previous) await this.shutdown(previous);
      this.failed.delete(file);
      // A user file of a shipped filter's stem replaces it; deleting that file brings the shipped one back.
      const twin = shippedTwin(this.sources(), file);
      const shadowed = twin && [...this.active.values()].find((filter) => filter.file === twin);
      if (!existsSync(file)) {
        this.fingerprints.delete(file);
        this.options.logger.info({ file }, 'filter file removed');
        if (twin && !shadowed && !this.failed.has(twin)) {
          const restored = await this.importOne(twin);
          if (restored) await this.startup(restored);
        }
        return;
      }
      if (shadowed) {
        this.options.logger.info(
          { file: twin },
          `shipped filter ${shadowed.id} is overridden by ${path.basename(file)}`,
        );
        await this.shutdown(shadowed);
      }
      const loaded = await this.importOne(file);
      if (loaded) await this.startup(loaded);
    });
  }

  /** Shut every filter down (server stop). */
  close(): Promise<void> {
    this.watcher?.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    return this.serial(async () => {
      for (const filter of this.list()) await this.shutdown(filter);
      this.active.clear();
    });
  }

  /** Watch the directory and reload changed files after `debounceMs`. */
  watch(): void {
    if (this.watcher || !existsSync(this.options.dir)) return;
    this.watcher = watch(this.options.dir, (_event, name) => {
      if (!name || !isFilterFileName(String(name))) return;
      const file = path.join(this.options.dir, String(name));
      clearTimeout(this.timers.get(file));
      this.timers.set(
        file,
        setTimeout(() => {
          this.timers.delete(file);
          if (fingerprint(file) !== this.fingerprints.get(file)) void this.reloadFile(file);
        }, this.options.debounceMs ?? 300),
      );
    });
    this.watcher.on('error', (error) =>
      this.options.logger.warn({ err: error.message }, 'filter directory watch failed'),
    );
  }

  /** Replace a filter's admin valves (already validated) and call onValvesUpdated. */
  async applyValves(id: string, values: ActiveFilter['valves']): Promise<void> {
    const filter = this.active.get(id);
    if (!filter) return;
    filter.valves = values;
    try {
      await filter.definition.onValvesUpdated?.(this.lifecycleArgs(filter));
    } catch (error) {
      if (error instanceof EunoeError) throw error;
      throw new FilterExecutionError(
        id,
        'onValvesUpdated',
        (error as Error)?.message || `Filter ${id} onValvesUpdated failed`,
        { cause: error },
      );
    }
  }

  /** Re-read a filter's saved valves (another replica changed them). */
  async refreshValves(id: string): Promise<void> {
    const filter = this.active.get(id);
    if (!filter) return;
    const { values } = mergeSavedValves(filter.valvesSchema, await this.options.valves.loadAdmin(id));
    try {
      await this.applyValves(id, values as ActiveFilter['valves']);
    } catch (error) {
      this.options.logger.warn(
        { filter: id, err: (error as Error).message },
        'onValvesUpdated failed after a change from another replica',
      );
    }
  }

  lifecycleArgs(filter: ActiveFilter): LifecycleArgs<Record<string, unknown>> {
    return {
      valves: filter.valves,
      logger: this.options.logger.child({ filter: filter.id }),
      state: filter.state,
      services: this.options.services,
      filterId: filter.id,
    };
  }

  private fail(file: string, id: string, error: unknown, loaded?: LoadedModule): void {
    const entry: FailedFilter = {
      id,
      file: path.basename(file),
      error: (error as Error)?.message ?? String(error),
      line: error instanceof FilterLoadError ? error.line : undefined,
      origin: this.origin(file),
      kind:
        (loaded && moduleTypeOf(loaded)) ??
        (error instanceof FilterLoadError ? error.kind : undefined) ??
        kindOfSource(file),
    };
    this.failed.set(file, entry);
    this.options.logger.error({ file: entry.file, line: entry.line, err: entry.error }, 'filter failed to load');
  }

  private async importOne(file: string): Promise<ActiveFilter | undefined> {
    this.fingerprints.set(file, fingerprint(file));
    let loaded: LoadedModule | undefined;
    try {
      loaded = await (this.options.load ?? loadFilterFile)(file);
      const clash = this.active.get(loaded.id);
      if (clash && clash.file !== file && this.origin(file) === 'package' && this.origin(clash.file) === 'user') {
        // The user's folder loads first: its filter with a shipped filter's id replaces the shipped one.
        this.options.logger.info(
          { file, by: clash.file },
          `shipped filter ${loaded.id} is overridden by ${path.basename(clash.file)}`,
        );
        await loaded.release?.();
        return undefined;
      }
      if (clash && clash.file !== file)
        throw new FilterLoadError(file, `duplicate filter id "${loaded.id}" (also in ${path.basename(clash.file)})`);
      const { values, dropped } = mergeSavedValves(loaded.valvesSchema, await this.options.valves.loadAdmin(loaded.id));
      if (dropped.length)
        this.options.logger.warn({ filter: loaded.id, dropped }, 'saved valves fell back to defaults');
      const filter: ActiveFilter = {
        ...loaded,
        valves: values as ActiveFilter['valves'],
        state: new ScopedState(this.options.store, `f:${loaded.id}:`),
      };
      this.active.set(filter.id, filter);
      this.options.onFlags?.(filter.id, filter.definition.flags);
      this.options.logger.info(
        { filter: filter.id, file: path.basename(file), isolation: filter.isolation ?? 'main' },
        'filter loaded',
      );
      return filter;
    } catch (error) {
      await loaded?.release?.();
      this.fail(file, fileStem(file), error, loaded);
      return undefined;
    }
  }

  private async startup(filter: ActiveFilter): Promise<void> {
    try {
      await filter.definition.onStartup?.(this.lifecycleArgs(filter));
    } catch (error) {
      this.active.delete(filter.id);
      this.options.onFlags?.(filter.id, undefined);
      await filter.release?.();
      this.fail(filter.file, filter.id, new Error(`onStartup failed: ${(error as Error)?.message ?? error}`), filter);
    }
  }

  private async shutdown(filter: ActiveFilter, replaced = false): Promise<void> {
    if (this.active.get(filter.id) === filter) this.active.delete(filter.id);
    if (!replaced) this.options.onFlags?.(filter.id, undefined);
    try {
      await filter.definition.onShutdown?.(this.lifecycleArgs(filter));
    } catch (error) {
      this.options.logger.warn({ filter: filter.id, err: (error as Error)?.message }, 'onShutdown failed');
    }
    await filter
      .release?.()
      .catch((error: unknown) =>
        this.options.logger.warn({ filter: filter.id, err: (error as Error)?.message }, 'releasing the filter failed'),
      );
  }
}

/** sha256 of a file's bytes ('' when it cannot be read). */
function fingerprint(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return '';
  }
}
