import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/util/logger.js';
import type { StateStore } from '../../state/types.js';
import { ScopedState } from '../../state/scoped-state.js';
import type { FlagSpec } from '../../domain/flags/types.js';
import type { HostServices, LifecycleArgs } from './types.js';
import { FilterLoadError, fileStem, loadFilterFile, type LoadedModule } from './load-filter-file.js';
import { mergeSavedValves } from './coerce-valves.js';
import type { ValvesRepository } from './valves-repository.js';
import { userDirs, type FilterOrigin } from './filter-sources.js';
import type { ActiveFilter, ActiveModule, FailedFilter } from './active-module.js';
import { ModuleMap } from './module-map.js';
import { FilterWatcher } from './filter-watcher.js';
import { JobQueue } from './job-queue.js';
import { ModuleLifecycle } from './module-lifecycle.js';

export type { ActiveFilter, ActiveModule, ActivePipe, FailedFilter } from './active-module.js';

export interface ModuleRegistryOptions {
  /** The user's filters folder (FILTERS_DIR). */
  dir: string;
  /** Where the API writes filter files (default `dir`; see FilterSources.uploadDir). */
  uploadDir?: string;
  store: StateStore;
  valves: ValvesRepository;
  services: HostServices;
  logger: Logger;
  /** Debounce for file-change reloads. */
  debounceMs?: number;
  /** Loads one file (default: import it in this thread); see src/runtime/host/isolation. */
  load?: (file: string) => Promise<LoadedModule>;
  /** The package's shipped filters to load besides `dir` (`dir` overrides them by file stem or id). */
  shipped?: { dir: string; files: readonly string[] };
  /** Called when a filter's registered flags appear (specs) or go away (undefined). */
  onFlags?: (filterId: string, specs: FlagSpec[] | undefined) => void;
}

/**
 * Holds every filter and pipe from the filter folders: loads them in isolation (a broken file never stops the
 * others), runs lifecycle hooks in order, reloads on change. The pieces: the id → module map with the folders'
 * precedence (ModuleMap), the folder watcher (FilterWatcher), the queue that serialises loads (JobQueue), and
 * start-up, shut-down and valves (ModuleLifecycle); this class runs a full load and a one-file reload over them.
 */
export class ModuleRegistry {
  private readonly modules: ModuleMap;
  private readonly lifecycle: ModuleLifecycle;
  private readonly watcher: FilterWatcher;
  /** Every load/unload runs in this queue, so hooks never interleave. */
  private readonly jobs = new JobQueue();

  /** True once the first loadAll has finished (GET /readyz). */
  loaded = false;

  constructor(private readonly options: ModuleRegistryOptions) {
    this.modules = new ModuleMap({
      sources: {
        userDir: options.dir,
        uploadDir: options.uploadDir,
        packageDir: options.shipped?.dir,
        shipped: options.shipped?.files,
      },
      logger: options.logger,
    });
    this.lifecycle = new ModuleLifecycle({
      modules: this.modules,
      valves: options.valves,
      services: options.services,
      logger: options.logger,
      onFlags: options.onFlags,
    });
    this.watcher = new FilterWatcher({
      logger: options.logger,
      debounceMs: options.debounceMs,
      onChange: (file) => void this.reloadFile(file),
    });
  }

  /** Active filters (and pipes: `kind`) in ascending priority (ties by id). Pipes have no priority: 0. */
  list(): ActiveModule[] {
    return this.modules.list();
  }
  failures(): FailedFilter[] {
    return this.modules.failures();
  }
  get(id: string): ActiveModule | undefined {
    return this.modules.get(id);
  }
  /**
   * Why the latest version of a loaded filter's file does not load, while its last good version keeps serving
   * (undefined when the file loads as it is).
   */
  loadError(id: string): FailedFilter | undefined {
    return this.modules.loadError(id);
  }
  /** The failure recorded for an id, if that file failed. */
  failure(id: string): FailedFilter | undefined {
    return this.modules.failure(id);
  }

  /** Filter files to load: the user's folders (sorted), then the shipped files they do not override. */
  files(): string[] {
    return this.modules.files();
  }

  /** Where the API writes filter files (FILTERS_DIR, or DATA_DIR/filters when that is the package's folder). */
  get uploadDir(): string {
    return this.options.uploadDir ?? this.options.dir;
  }

  /** The file a loaded or failed filter id comes from (absolute path), if any. */
  fileOf(id: string): string | undefined {
    return this.modules.fileOf(id);
  }

  /**
   * The failure recorded for a file (absolute path), if it failed to load or start, or if its latest version
   * failed to load while its last good version keeps serving.
   */
  failureOf(file: string): FailedFilter | undefined {
    return this.modules.failureOf(file);
  }

  /** Where a loaded or failed file comes from (`package`: shipped with Eunoe; `user`: the filters folder). */
  origin(file: string): FilterOrigin {
    return this.modules.origin(file);
  }

  /**
   * The filter for a request. While a reload or swap is under way the request waits for it
   * (at most `maxWaitMs`), so it is neither answered 404 nor served by a filter that is half
   * shut down or not yet started.
   */
  async acquire(id: string, maxWaitMs = 10_000): Promise<ActiveModule | undefined> {
    await this.jobs.idle(maxWaitMs);
    return this.get(id);
  }

  /**
   * (Re)load every file: import the new set first (the old filters keep serving meanwhile),
   * then swap (the new set serves), shut the old ones down and start the new ones in priority order.
   */
  loadAll(): Promise<void> {
    return this.jobs.run(async () => {
      const previous = this.modules.beginImport();
      try {
        for (const file of this.modules.files()) await this.importOne(file);
      } finally {
        this.modules.endImport();
      }
      // A file that no longer loads keeps its last good version serving (already started: no lifecycle call).
      const kept = new Set<ActiveModule>();
      for (const module of previous)
        if (!this.modules.has(module.id) && this.modules.keepLastGood(module)) {
          this.modules.add(module);
          kept.add(module);
        }
      // The new filters serve from here on; the previous ones are shut down after (never a moment with neither).
      for (const module of previous)
        if (!kept.has(module)) await this.lifecycle.shutdown(module, this.modules.has(module.id));
      for (const module of this.list()) if (!kept.has(module)) await this.lifecycle.startup(module);
      this.loaded = true;
    });
  }

  /**
   * Reload one file after it changed, appeared or disappeared. A file replaces the one of the same stem (or
   * id) in a folder of lower precedence (an upload over FILTERS_DIR, either over a shipped filter); when it
   * goes, what it replaced serves again.
   */
  reloadFile(file: string): Promise<void> {
    return this.jobs.run(async () => {
      const { modules, lifecycle } = this;
      const previous = modules.activeFrom(file);
      modules.clearFailure(file);
      const files = modules.candidates();
      if (!existsSync(file)) {
        if (previous) await lifecycle.shutdown(previous);
        modules.clearLoadError(file);
        this.watcher.forget(file);
        this.options.logger.info({ file }, 'filter file removed');
        // What the file replaced (a file of its stem, or of the id it had) loads again.
        const stems = new Set([fileStem(file), previous?.id]);
        for (const other of files) {
          if (!stems.has(fileStem(other)) || modules.activeFrom(other) || modules.hasFailed(other)) continue;
          const restored = await this.importOne(other);
          if (restored) await lifecycle.startup(restored);
        }
        return;
      }
      const winner = files.find((candidate) => fileStem(candidate) === fileStem(file));
      if (winner !== file) {
        if (previous) await lifecycle.shutdown(previous);
        modules.clearLoadError(file);
        // A disabled shipped file, or one replaced by a file of the same stem in a folder above it.
        if (winner)
          this.options.logger.info({ file, by: winner }, `filter ${fileStem(file)} is overridden by ${winner}`);
        return;
      }
      // A replaced file's failure is no longer listed (it does not load while this one is there).
      modules.clearFailuresReplacedBy(file);
      const shadowed = modules.shadowedBy(file);
      if (shadowed) {
        this.options.logger.info(
          { file: shadowed.file, by: file },
          `${modules.origin(shadowed.file) === 'package' ? 'shipped filter' : 'filter'} ${shadowed.id} is overridden by ${path.basename(file)}`,
        );
        await lifecycle.shutdown(shadowed);
      }
      // The new version is imported while the previous one serves; it replaces it only once it loaded.
      const loaded = await this.importOne(file, true);
      if (!loaded && previous && modules.keepLastGood(previous)) return;
      modules.clearLoadError(file);
      if (previous) await lifecycle.shutdown(previous, loaded?.id === previous.id);
      if (loaded) await lifecycle.startup(loaded);
    });
  }

  /** Shut every filter down (server stop). */
  close(): Promise<void> {
    this.watcher.close();
    return this.jobs.run(async () => {
      for (const module of this.list()) await this.lifecycle.shutdown(module);
      this.modules.clearActive();
    });
  }

  /** Watch the user's folders (FILTERS_DIR and the upload folder) and reload changed files after `debounceMs`. */
  watch(): void {
    if (this.watcher.watching) return;
    const dirs = userDirs(this.modules.sources);
    // The upload folder is made at the first upload; make it now so files copied into it by hand load too.
    if (this.options.uploadDir && dirs.includes(this.options.uploadDir))
      mkdirSync(this.options.uploadDir, { recursive: true, mode: 0o700 });
    this.watcher.watch(dirs);
  }

  /** Replace a filter's admin valves (already validated) and call onValvesUpdated. */
  applyValves(id: string, values: Record<string, unknown>): Promise<void> {
    return this.lifecycle.applyValves(id, values);
  }

  /** Re-read a filter's saved valves (another replica changed them). */
  refreshValves(id: string): Promise<void> {
    return this.lifecycle.refreshValves(id);
  }

  lifecycleArgs(module: ActiveModule): LifecycleArgs<Record<string, unknown>> {
    return this.lifecycle.args(module);
  }

  /**
   * Import and register one file. A shipped filter whose id a user file already has is not loaded (the user's
   * replaces it); with `takeOver`, a user file whose id an active shipped filter has replaces that one.
   */
  private async importOne(file: string, takeOver = false): Promise<ActiveModule | undefined> {
    this.watcher.remember(file);
    let loaded: LoadedModule | undefined;
    try {
      loaded = await (this.options.load ?? loadFilterFile)(file);
      const clash = this.modules.clash(loaded.id, file, takeOver);
      if (clash.verdict === 'overridden') {
        // The user's folder loads first: its filter with a shipped filter's id replaces the shipped one.
        this.options.logger.info(
          { file, by: clash.by.file },
          `shipped filter ${loaded.id} is overridden by ${path.basename(clash.by.file)}`,
        );
        await loaded.release?.();
        return undefined;
      }
      if (clash.verdict === 'takes-over') {
        this.options.logger.info(
          { file: clash.from.file, by: file },
          `shipped filter ${clash.from.id} is overridden by ${path.basename(file)}`,
        );
        await this.lifecycle.shutdown(clash.from);
      } else if (clash.verdict === 'duplicate')
        throw new FilterLoadError(
          file,
          `duplicate filter id "${loaded.id}" (also in ${path.basename(clash.with.file)})`,
        );
      const { values, dropped } = mergeSavedValves(loaded.valvesSchema, await this.options.valves.loadAdmin(loaded.id));
      if (dropped.length)
        this.options.logger.warn({ filter: loaded.id, dropped }, 'saved valves fell back to defaults');
      const state = new ScopedState(this.options.store, `f:${loaded.id}:`);
      const module: ActiveModule =
        loaded.kind === 'pipe'
          ? { ...loaded, valves: values, state }
          : { ...loaded, valves: values as ActiveFilter['valves'], state };
      this.modules.add(module);
      this.lifecycle.added(module);
      this.options.logger.info(
        { filter: module.id, file: path.basename(file), isolation: module.isolation ?? 'main' },
        'filter loaded',
      );
      return module;
    } catch (error) {
      await loaded?.release?.();
      this.modules.fail(file, fileStem(file), error, loaded);
      return undefined;
    }
  }
}
