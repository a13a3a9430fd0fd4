import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/util/logger.js';
import type { StateStore } from '../../state/types.js';
import { randomUUID } from 'node:crypto';
import { writeFileAtomic } from '../../core/util/atomic-write.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../core/util/private-files.js';
import { reportDegraded } from '../../core/util/store-outage.js';
import { errorMessage } from '../../core/util/error-message.js';

/**
 * Where valve values live. Admin valves: `valves/<id>.json` (atomic write), mirrored in
 * the state store so replicas on one Redis share them; a change is published on the
 * `valves` channel. Per-user valves: the state store only (`valves:user:<id>:<user>`).
 */
export class ValvesRepository {
  /** Tags this process's own change messages, so it does not re-apply its own updates. */
  private readonly origin = randomUUID();

  constructor(private readonly options: { dir: string; store: StateStore; logger: Logger }) {}

  private file(filterId: string): string {
    return path.join(this.options.dir, `${filterId}.json`);
  }

  /**
   * Saved admin values. The store's copy is shared by replicas; the file is this replica's copy
   * (and what an admin may edit by hand). The newer one wins: a file written while the store was
   * down, or edited by hand, is pushed back to the store instead of being silently reverted.
   */
  async loadAdmin(filterId: string): Promise<unknown> {
    let shared: { values: unknown; updatedAt: number } | undefined;
    try {
      shared = sharedDoc(await this.options.store.get(`valves:admin:${filterId}`));
    } catch (error) {
      this.options.logger.warn(
        { filterId, err: errorMessage(error) },
        'state store unavailable; admin valves read from file',
      );
    }
    const local = this.readFile(filterId);
    if (shared && (!local || local.updatedAt <= shared.updatedAt + 1000)) return shared.values;
    if (!local) return undefined;
    if (shared)
      this.options.logger.info({ filterId }, 'valves file is newer than the shared copy; using and sharing the file');
    await this.options.store
      .set(`valves:admin:${filterId}`, { values: local.values, updatedAt: local.updatedAt })
      .catch(() => undefined);
    return local.values;
  }

  private readFile(filterId: string): { values: unknown; updatedAt: number } | undefined {
    const file = this.file(filterId);
    if (!existsSync(file)) return undefined;
    try {
      return { values: JSON.parse(readFileSync(file, 'utf8')), updatedAt: statSync(file).mtimeMs };
    } catch (error) {
      this.options.logger.warn({ filterId, file, err: errorMessage(error) }, 'saved valves unreadable; using defaults');
      return undefined;
    }
  }

  /** Persist admin values (file first, then the store) and tell other replicas. */
  async saveAdmin(filterId: string, values: unknown): Promise<void> {
    // Valves may hold API keys (the summarizer's): owner-only file in an owner-only directory.
    writeFileAtomic(this.file(filterId), `${JSON.stringify(values, null, 2)}\n`, PRIVATE_FILE_MODE, PRIVATE_DIR_MODE);
    try {
      await this.options.store.set(`valves:admin:${filterId}`, { values, updatedAt: Date.now() });
      await this.options.store.publish('valves', JSON.stringify({ filterId, origin: this.origin }));
    } catch (error) {
      this.options.logger.warn(
        { filterId, err: errorMessage(error) },
        'valves saved to file only; other replicas will not see them until the store is back',
      );
    }
  }

  /** A user's saved values, or undefined (also when the store is down: the filter then uses defaults). */
  async loadUser(filterId: string, userId: string): Promise<unknown> {
    try {
      return await this.options.store.get(`valves:user:${filterId}:${userId}`);
    } catch (error) {
      reportDegraded(this.options.logger, 'state store unavailable; user valves fall back to defaults', error, {
        filterId,
      });
      return undefined;
    }
  }

  /** Persist a user's values (throws when the store is down: the caller answers 503). */
  async saveUser(filterId: string, userId: string, values: unknown): Promise<void> {
    await this.options.store.set(`valves:user:${filterId}:${userId}`, values);
  }

  /** Call `handler(filterId)` when any replica changes a filter's admin valves. */
  onChange(handler: (filterId: string) => void): () => void {
    return this.options.store.subscribe('valves', (message) => {
      try {
        const { filterId, origin } = JSON.parse(message) as { filterId?: string; origin?: string };
        if (filterId && origin !== this.origin) handler(filterId);
      } catch {
        // ignore malformed messages from other deployments
      }
    });
  }
}

/** The store's valves document `{values, updatedAt}` (older plain-object copies count as oldest). */
function sharedDoc(value: unknown): { values: unknown; updatedAt: number } | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value === 'object' &&
    'values' in value &&
    typeof (value as { updatedAt?: unknown }).updatedAt === 'number'
  ) {
    return value as { values: unknown; updatedAt: number };
  }
  return { values: value, updatedAt: 0 };
}
