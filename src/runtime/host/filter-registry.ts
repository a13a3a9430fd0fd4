import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/util/logger.js';
import type { StateStore } from '../../state/types.js';
import { ScopedState } from '../../state/scoped-state.js';
import type { FlagSpec } from '../../domain/flags/types.js';
import type { HostServices, LifecycleArgs } from './types.js';
import { kindOfSource, moduleTypeOf, type DeclaredKind } from './declared-kind.js';
import {
  FilterLoadError,
  fileStem,
  isFilterFileName,
  loadFilterFile,
  type LoadedFilter,
  type LoadedModule,
  type LoadedPipe,
} from './load-filter-file.js';
import { EunoeError, FilterExecutionError } from '../../core/errors/index.js';
import { mergeSavedValves } from './coerce-valves.js';
import type { ValvesRepository } from './valves-repository.js';
import { listFilterFiles, originOf, userDirs, type FilterOrigin, type FilterSources } from './filter-sources.js';
import { errorMessage } from '../../core/util/error-message.js';
import { servicesWithoutUser } from './user-scoped-services.js';

/** A loaded, started filter with its current admin valves (which always have `pipelines` and `priority`). */
export type ActiveFilter = LoadedFilter & {
  valves: Record<string, unknown> & { pipelines: string[]; priority: number };
  state: ScopedState;
};

/** A loaded, started pipe with its current valves (its own only: a model has no `pipelines` or `priority`). */
export type ActivePipe = LoadedPipe & { valves: Record<string, unknown>; state: ScopedState };

/** What the registry holds: a filter or a pipe, told apart by `kind`. */
export type ActiveModule = ActiveFilter | ActivePipe;

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
 * Holds every filter from the filters directory: loads them in isolation (a broken file
 * never stops the others), runs lifecycle hooks in order, reloads on change.
 */
export class FilterRegistry {
  private readonly active = new Map<string, ActiveModule>();
  private readonly failed = new Map<string, FailedFilter>();
  /** Files whose latest version failed to load while their last good version keeps serving (by file). */
  private readonly loadErrors = new Map<string, FailedFilter>();
  private readonly watchers: FSWatcher[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private queue: Promise<void> = Promise.resolve();
  /** Jobs queued by `serial` and not yet finished. */
  private pendingJobs = 0;
  /** While loadAll imports, requests are still served by the previous filters. */
  private importing?: Map<string, ActiveModule>;
  /** Content hash of each file as last loaded, so a watcher event for an unchanged file does nothing. */
  private readonly fingerprints = new Map<string, string>();

  /** True once the first loadAll has finished (GET /readyz). */
  loaded = false;

  constructor(private readonly options: FilterRegistryOptions) {}

  /** Active filters (and pipes: `kind`) in ascending priority (ties by id). Pipes have no priority: 0. */
  list(): ActiveModule[] {
    const priority = (module: ActiveModule) => (module.kind === 'filter' ? module.valves.priority : 0);
    return [...(this.importing ?? this.active).values()].sort(
      (a, b) => priority(a) - priority(b) || a.id.localeCompare(b.id),
    );
  }
  failures(): FailedFilter[] {
    return [...this.failed.values()].sort((a, b) => a.id.localeCompare(b.id));
  }
  get(id: string): ActiveModule | undefined {
    return this.importing?.get(id) ?? this.active.get(id);
  }
  /**
   * Why the latest version of a loaded filter's file does not load, while its last good version keeps serving
   * (undefined when the file loads as it is).
   */
  loadError(id: string): FailedFilter | undefined {
    const file = this.get(id)?.file;
    return file ? this.loadErrors.get(file) : undefined;
  }
  /** The failure recorded for an id, if that file failed. */
  failure(id: string): FailedFilter | undefined {
    return [...this.failed.values()].find((entry) => entry.id === id);
  }

  /** Filter files to load: the user's folders (sorted), then the shipped files they do not override. */
  files(): string[] {
    const { files, overridden } = listFilterFiles(this.sources());
    for (const { file, by, origin } of overridden)
      this.options.logger.info(
        { file, by },
        `${origin === 'package' ? 'shipped filter' : 'filter'} ${fileStem(file)} is overridden by ${by}`,
      );
    return files;
  }

  /** Where the API writes filter files (FILTERS_DIR, or DATA_DIR/filters when that is the package's folder). */
  get uploadDir(): string {
    return this.options.uploadDir ?? this.options.dir;
  }

  /** The file a loaded or failed filter id comes from (absolute path), if any. */
  fileOf(id: string): string | undefined {
    const active = this.get(id)?.file;
    if (active) return active;
    return [...this.failed.entries()].find(([, entry]) => entry.id === id)?.[0];
  }

  /**
   * The failure recorded for a file (absolute path), if it failed to load or start, or if its latest version
   * failed to load while its last good version keeps serving.
   */
  failureOf(file: string): FailedFilter | undefined {
    return this.failed.get(file) ?? this.loadErrors.get(file);
  }

  /** Where a loaded or failed file comes from (`package`: shipped with Eunoe; `user`: the filters folder). */
  origin(file: string): FilterOrigin {
    return originOf(this.sources(), path.isAbsolute(file) ? file : path.join(this.options.dir, file));
  }

  private sources(): FilterSources {
    return {
      userDir: this.options.dir,
      uploadDir: this.options.uploadDir,
      packageDir: this.options.shipped?.dir,
      shipped: this.options.shipped?.files,
    };
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
  async acquire(id: string, maxWaitMs = 10_000): Promise<ActiveModule | undefined> {
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
      this.loadErrors.clear();
      this.importing = previousById;
      try {
        for (const file of this.files()) await this.importOne(file);
      } finally {
        this.importing = undefined;
      }
      // A file that no longer loads keeps its last good version serving (already started: no lifecycle call).
      const kept = new Set<ActiveModule>();
      for (const filter of previous)
        if (!this.active.has(filter.id) && this.keepLastGood(filter)) {
          this.active.set(filter.id, filter);
          kept.add(filter);
        }
      // The new filters serve from here on; the previous ones are shut down after (never a moment with neither).
      for (const filter of previous) if (!kept.has(filter)) await this.shutdown(filter, this.active.has(filter.id));
      for (const filter of this.list()) if (!kept.has(filter)) await this.startup(filter);
      this.loaded = true;
    });
  }

  /**
   * After `filter`'s file failed to load again: record the failure as the file's load error (listed on the
   * loaded filter, logged) instead of a failed file, so the version already running keeps serving. False when
   * the file did not fail (it was removed, or is overridden).
   */
  private keepLastGood(filter: ActiveModule): boolean {
    const failure = this.failed.get(filter.file);
    if (!failure) return false;
    this.failed.delete(filter.file);
    this.loadErrors.set(filter.file, failure);
    this.options.logger.error(
      { filter: filter.id, file: failure.file, line: failure.line, err: failure.error },
      `filter ${filter.id}: the changed file does not load; its last good version keeps serving until it does`,
    );
    return true;
  }

  /**
   * Reload one file after it changed, appeared or disappeared. A file replaces the one of the same stem (or
   * id) in a folder of lower precedence (an upload over FILTERS_DIR, either over a shipped filter); when it
   * goes, what it replaced serves again.
   */
  reloadFile(file: string): Promise<void> {
    return this.serial(async () => {
      const activeFrom = (candidate: string) => [...this.active.values()].find((filter) => filter.file === candidate);
      const previous = activeFrom(file);
      this.failed.delete(file);
      const { files } = listFilterFiles(this.sources());
      if (!existsSync(file)) {
        if (previous) await this.shutdown(previous);
        this.loadErrors.delete(file);
        this.fingerprints.delete(file);
        this.options.logger.info({ file }, 'filter file removed');
        // What the file replaced (a file of its stem, or of the id it had) loads again.
        const stems = new Set([fileStem(file), previous?.id]);
        for (const other of files) {
          if (!stems.has(fileStem(other)) || activeFrom(other) || this.failed.has(other)) continue;
          const restored = await this.importOne(other);
          if (restored) await this.startup(restored);
        }
        return;
      }
      const winner = files.find((candidate) => fileStem(candidate) === fileStem(file));
      if (winner !== file) {
        if (previous) await this.shutdown(previous);
        this.loadErrors.delete(file);
        // A disabled shipped file, or one replaced by a file of the same stem in a folder above it.
        if (winner)
          this.options.logger.info({ file, by: winner }, `filter ${fileStem(file)} is overridden by ${winner}`);
        return;
      }
      // A replaced file's failure is no longer listed (it does not load while this one is there).
      for (const other of [...this.failed.keys()])
        if (other !== file && fileStem(other) === fileStem(file)) this.failed.delete(other);
      const shadowed = [...this.active.values()].find(
        (filter) => filter.file !== file && fileStem(filter.file) === fileStem(file),
      );
      if (shadowed) {
        this.options.logger.info(
          { file: shadowed.file, by: file },
          `${this.origin(shadowed.file) === 'package' ? 'shipped filter' : 'filter'} ${shadowed.id} is overridden by ${path.basename(file)}`,
        );
        await this.shutdown(shadowed);
      }
      // The new version is imported while the previous one serves; it replaces it only once it loaded.
      const loaded = await this.importOne(file, true);
      if (!loaded && previous && this.keepLastGood(previous)) return;
      this.loadErrors.delete(file);
      if (previous) await this.shutdown(previous, loaded?.id === previous.id);
      if (loaded) await this.startup(loaded);
    });
  }

  /** Shut every filter down (server stop). */
  close(): Promise<void> {
    for (const watcher of this.watchers.splice(0)) watcher.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    return this.serial(async () => {
      for (const filter of this.list()) await this.shutdown(filter);
      this.active.clear();
    });
  }

  /** Watch the user's folders (FILTERS_DIR and the upload folder) and reload changed files after `debounceMs`. */
  watch(): void {
    if (this.watchers.length) return;
    const dirs = userDirs(this.sources());
    // The upload folder is made at the first upload; make it now so files copied into it by hand load too.
    if (this.options.uploadDir && dirs.includes(this.options.uploadDir))
      mkdirSync(this.options.uploadDir, { recursive: true, mode: 0o700 });
    for (const dir of dirs) {
      if (!existsSync(dir)) continue;
      const watcher = watch(dir, (_event, name) => {
        if (!name || !isFilterFileName(String(name))) return;
        const file = path.join(dir, String(name));
        clearTimeout(this.timers.get(file));
        this.timers.set(
          file,
          setTimeout(() => {
            this.timers.delete(file);
            if (fingerprint(file) !== this.fingerprints.get(file)) void this.reloadFile(file);
          }, this.options.debounceMs ?? 300),
        );
      });
      watcher.on('error', (error) =>
        this.options.logger.warn({ err: error.message, dir }, 'filter directory watch failed'),
      );
      this.watchers.push(watcher);
    }
  }

  /** Replace a filter's admin valves (already validated) and call onValvesUpdated. */
  async applyValves(id: string, values: Record<string, unknown>): Promise<void> {
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
        errorMessage(error) || `Filter ${id} onValvesUpdated failed`,
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
      await this.applyValves(id, values as Record<string, unknown>);
    } catch (error) {
      this.options.logger.warn(
        { filter: id, err: errorMessage(error) },
        'onValvesUpdated failed after a change from another replica',
      );
    }
  }

  lifecycleArgs(filter: ActiveModule): LifecycleArgs<Record<string, unknown>> {
    return {
      valves: filter.valves,
      logger: this.options.logger.child({ filter: filter.id }),
      state: filter.state,
      // No request, no user: a lifecycle hook writes no usage record and no hold.
      services: servicesWithoutUser(this.options.services),
      filterId: filter.id,
    };
  }

  private fail(file: string, id: string, error: unknown, loaded?: LoadedModule): void {
    const entry: FailedFilter = {
      id,
      file: path.basename(file),
      error: errorMessage(error),
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

  /**
   * Import and register one file. A shipped filter whose id a user file already has is not loaded (the user's
   * replaces it); with `takeOver`, a user file whose id an active shipped filter has replaces that one.
   */
  private async importOne(file: string, takeOver = false): Promise<ActiveModule | undefined> {
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
      if (
        clash &&
        clash.file !== file &&
        takeOver &&
        this.origin(file) === 'user' &&
        this.origin(clash.file) === 'package'
      ) {
        this.options.logger.info(
          { file: clash.file, by: file },
          `shipped filter ${clash.id} is overridden by ${path.basename(file)}`,
        );
        await this.shutdown(clash);
      } else if (clash && clash.file !== file)
        throw new FilterLoadError(file, `duplicate filter id "${loaded.id}" (also in ${path.basename(clash.file)})`);
      const { values, dropped } = mergeSavedValves(loaded.valvesSchema, await this.options.valves.loadAdmin(loaded.id));
      if (dropped.length)
        this.options.logger.warn({ filter: loaded.id, dropped }, 'saved valves fell back to defaults');
      const state = new ScopedState(this.options.store, `f:${loaded.id}:`);
      const filter: ActiveModule =
        loaded.kind === 'pipe'
          ? { ...loaded, valves: values, state }
          : { ...loaded, valves: values as ActiveFilter['valves'], state };
      this.active.set(filter.id, filter);
      this.options.onFlags?.(filter.id, filter.kind === 'filter' ? filter.definition.flags : undefined);
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

  private async startup(filter: ActiveModule): Promise<void> {
    try {
      await filter.definition.onStartup?.(this.lifecycleArgs(filter));
    } catch (error) {
      this.active.delete(filter.id);
      this.options.onFlags?.(filter.id, undefined);
      await filter.release?.();
      this.fail(filter.file, filter.id, new Error(`onStartup failed: ${errorMessage(error) ?? error}`), filter);
    }
  }

  private async shutdown(filter: ActiveModule, replaced = false): Promise<void> {
    if (this.active.get(filter.id) === filter) this.active.delete(filter.id);
    if (!replaced) this.options.onFlags?.(filter.id, undefined);
    try {
      await filter.definition.onShutdown?.(this.lifecycleArgs(filter));
    } catch (error) {
      this.options.logger.warn({ filter: filter.id, err: errorMessage(error) }, 'onShutdown failed');
    }
    await filter
      .release?.()
      .catch((error: unknown) =>
        this.options.logger.warn({ filter: filter.id, err: errorMessage(error) }, 'releasing the filter failed'),
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
