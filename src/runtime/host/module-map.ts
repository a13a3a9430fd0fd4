import path from 'node:path';
import type { Logger } from '../../core/util/logger.js';
import { errorMessage } from '../../core/util/error-message.js';
import type { ActiveModule, FailedFilter } from './active-module.js';
import { kindOfSource, moduleTypeOf } from './declared-kind.js';
import { listFilterFiles, originOf, type FilterOrigin, type FilterSources } from './filter-sources.js';
import { FilterLoadError, fileStem, type LoadedModule } from './load-filter-file.js';

/** How a newly loaded module's id meets an active module of another file (see ModuleMap.clash). */
export type IdClash =
  | { verdict: 'none' }
  /** A shipped file whose id a user's file already has: not loaded (the user's replaces it). */
  | { verdict: 'overridden'; by: ActiveModule }
  /** A user's file taking over the id of an active shipped module, which goes. */
  | { verdict: 'takes-over'; from: ActiveModule }
  /** Two files of one precedence with one id: the new one fails. */
  | { verdict: 'duplicate'; with: ActiveModule };

/**
 * The id → module map: the active filters and pipes, the files that failed, and the load errors of files whose last
 * good version keeps serving; with the override precedence between the folders they come from (an upload over
 * FILTERS_DIR, either over a shipped filter; see FilterSources).
 */
export class ModuleMap {
  private readonly active = new Map<string, ActiveModule>();
  /** Files that failed to load or start (by absolute path). */
  private readonly failed = new Map<string, FailedFilter>();
  /** Files whose latest version failed to load while their last good version keeps serving (by file). */
  private readonly loadErrors = new Map<string, FailedFilter>();
  /** While a full reload imports, requests are still served by the previous modules. */
  private importing?: Map<string, ActiveModule>;

  constructor(private readonly options: { sources: FilterSources; logger: Logger }) {}

  /** The folders modules load from. */
  get sources(): FilterSources {
    return this.options.sources;
  }

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
  /** The module serving `id` (during a full reload, the previous one until the new set is in). */
  get(id: string): ActiveModule | undefined {
    return this.importing?.get(id) ?? this.active.get(id);
  }
  /** Why the latest version of a loaded module's file does not load (undefined when it loads as it is). */
  loadError(id: string): FailedFilter | undefined {
    const file = this.get(id)?.file;
    return file ? this.loadErrors.get(file) : undefined;
  }
  /** The failure recorded for an id, if that file failed. */
  failure(id: string): FailedFilter | undefined {
    return [...this.failed.values()].find((entry) => entry.id === id);
  }
  /** The file a loaded or failed id comes from (absolute path), if any. */
  fileOf(id: string): string | undefined {
    const active = this.get(id)?.file;
    if (active) return active;
    return [...this.failed.entries()].find(([, entry]) => entry.id === id)?.[0];
  }
  /** The failure recorded for a file: it failed to load or start, or its latest version fails beside a good one. */
  failureOf(file: string): FailedFilter | undefined {
    return this.failed.get(file) ?? this.loadErrors.get(file);
  }

  // The active set, as loads and unloads change it.

  /** The active module of `id` (never the previous one of a full reload under way). */
  activeById(id: string): ActiveModule | undefined {
    return this.active.get(id);
  }
  /** The active module loaded from `file`. */
  activeFrom(file: string): ActiveModule | undefined {
    return [...this.active.values()].find((module) => module.file === file);
  }
  /** An active module of another file with the stem of `file` (one it replaces). */
  shadowedBy(file: string): ActiveModule | undefined {
    return [...this.active.values()].find((module) => module.file !== file && fileStem(module.file) === fileStem(file));
  }
  has(id: string): boolean {
    return this.active.has(id);
  }
  add(module: ActiveModule): void {
    this.active.set(module.id, module);
  }
  /** Remove `module` if it is the one active under its id. */
  remove(module: ActiveModule): void {
    if (this.active.get(module.id) === module) this.active.delete(module.id);
  }
  /** Remove whatever is active under `id`. */
  removeId(id: string): void {
    this.active.delete(id);
  }
  clearActive(): void {
    this.active.clear();
  }

  /**
   * Start a full reload: the active set and the failures are emptied for the new set, while `get` and `list` still
   * answer with the previous modules until `endImport`. Returns the previous modules, in `list` order.
   */
  beginImport(): ActiveModule[] {
    const previous = this.list();
    this.importing = new Map(this.active);
    this.active.clear();
    this.failed.clear();
    this.loadErrors.clear();
    return previous;
  }
  endImport(): void {
    this.importing = undefined;
  }

  // Failures.

  /** Record that `file` failed to load or start (and log it). */
  fail(file: string, id: string, error: unknown, loaded?: LoadedModule): void {
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
  hasFailed(file: string): boolean {
    return this.failed.has(file);
  }
  clearFailure(file: string): void {
    this.failed.delete(file);
  }
  /** A file now replaces the others of its stem: their failures are no longer listed (they do not load). */
  clearFailuresReplacedBy(file: string): void {
    for (const other of [...this.failed.keys()])
      if (other !== file && fileStem(other) === fileStem(file)) this.failed.delete(other);
  }
  clearLoadError(file: string): void {
    this.loadErrors.delete(file);
  }

  /**
   * After `module`'s file failed to load again: record the failure as the file's load error (listed on the loaded
   * module, logged) instead of a failed file, so the version already running keeps serving. False when the file did
   * not fail (it was removed, or is overridden).
   */
  keepLastGood(module: ActiveModule): boolean {
    const failure = this.failed.get(module.file);
    if (!failure) return false;
    this.failed.delete(module.file);
    this.loadErrors.set(module.file, failure);
    this.options.logger.error(
      { filter: module.id, file: failure.file, line: failure.line, err: failure.error },
      `filter ${module.id}: the changed file does not load; its last good version keeps serving until it does`,
    );
    return true;
  }

  // Override precedence.

  /** Filter files to load: the user's folders (sorted), then the shipped files they do not override (logged). */
  files(): string[] {
    const { files, overridden } = listFilterFiles(this.options.sources);
    for (const { file, by, origin } of overridden)
      this.options.logger.info(
        { file, by },
        `${origin === 'package' ? 'shipped filter' : 'filter'} ${fileStem(file)} is overridden by ${by}`,
      );
    return files;
  }
  /** Filter files to load, without logging what they override. */
  candidates(): string[] {
    return listFilterFiles(this.options.sources).files;
  }
  /** Where a file comes from (`package`: shipped with Eunoe; `user`: the filters folder). */
  origin(file: string): FilterOrigin {
    const { userDir } = this.options.sources;
    return originOf(this.options.sources, path.isAbsolute(file) ? file : path.join(userDir, file));
  }

  /** How `file`, just loaded with `id`, meets the module already active under that id (`takeOver`: see IdClash). */
  clash(id: string, file: string, takeOver: boolean): IdClash {
    const other = this.active.get(id);
    if (!other || other.file === file) return { verdict: 'none' };
    if (this.origin(file) === 'package' && this.origin(other.file) === 'user')
      return { verdict: 'overridden', by: other };
    if (takeOver && this.origin(file) === 'user' && this.origin(other.file) === 'package')
      return { verdict: 'takes-over', from: other };
    return { verdict: 'duplicate', with: other };
  }
}
