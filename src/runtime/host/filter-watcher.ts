import { createHash } from 'node:crypto';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/util/logger.js';
import { isFilterFileName } from './load-filter-file.js';

/**
 * Watches the filter folders: a filter file that changed, appeared or disappeared is reported once its events have
 * been quiet for `debounceMs`, and only when its content differs from the version last loaded (its fingerprint).
 */
export class FilterWatcher {
  private readonly watchers: FSWatcher[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Content hash of each file as last loaded, so a watcher event for an unchanged file does nothing. */
  private readonly fingerprints = new Map<string, string>();

  constructor(
    private readonly options: {
      logger: Logger;
      /** Debounce for file-change reloads (default 300 ms). */
      debounceMs?: number;
      /** A file changed (or appeared, or went). */
      onChange: (file: string) => void;
    },
  ) {}

  /** True while folders are watched. */
  get watching(): boolean {
    return this.watchers.length > 0;
  }

  /** Record the content of `file` as the version loaded now. */
  remember(file: string): void {
    this.fingerprints.set(file, fingerprint(file));
  }

  /** Forget a removed file. */
  forget(file: string): void {
    this.fingerprints.delete(file);
  }

  /** Watch `dirs` (those that exist). */
  watch(dirs: readonly string[]): void {
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
            if (fingerprint(file) !== this.fingerprints.get(file)) this.options.onChange(file);
          }, this.options.debounceMs ?? 300),
        );
      });
      watcher.on('error', (error) =>
        this.options.logger.warn({ err: error.message, dir }, 'filter directory watch failed'),
      );
      this.watchers.push(watcher);
    }
  }

  /** Stop watching; changes waiting for their debounce are dropped. */
  close(): void {
    for (const watcher of this.watchers.splice(0)) watcher.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
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
