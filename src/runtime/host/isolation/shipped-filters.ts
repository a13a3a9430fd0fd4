import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ShippedPlacement } from './isolation-settings.js';

/** The filters that come with Eunoe (files in the package's `filters/`). */
export const SHIPPED_FILTER_FILES = [
  'accounting.ts',
  'context.ts',
  'openai-proxy.ts',
  'spend-limit.ts',
  'system-prefix.ts',
  'turn-limit.ts',
] as const;

/**
 * Where a shipped filter runs under `FILTER_ISOLATION=auto`: the main thread, except the context filter's large
 * chats: its work (token counts, scoring, planning) grows with a chat's whole text (about 3 s of CPU for the largest
 * chat the default limits accept, 10,000 messages in 48 MB), so chats past 5,000 messages or 1 Mi characters run in
 * a worker thread of its own (size-routed-definition.ts), where they cannot hold the server's event loop; smaller
 * ones stay in the main thread, where a warm inlet is about half as fast again as through a worker.
 */
export const SHIPPED_PLACEMENT: Readonly<Record<(typeof SHIPPED_FILTER_FILES)[number], ShippedPlacement>> = {
  'accounting.ts': 'main',
  'context.ts': 'large-in-worker',
  'openai-proxy.ts': 'main',
  'spend-limit.ts': 'main',
  'system-prefix.ts': 'main',
  'turn-limit.ts': 'main',
};

/**
 * The memory limit of a shipped filter in a worker, in MB (FILTER_WORKER_MAX_MB when that is higher). The limit guards
 * the server against filters it does not know; a shipped filter is trusted code, which in the main thread is bounded by
 * the process alone. The context filter in a worker holds its tokenizer's ranks (about 66 MB outside the heap), a token
 * cache of up to 200,000 entries and each chat it plans (48 MB of text at the default limits): FILTER_WORKER_MAX_MB's
 * default of 256 was full after some hundred large chats of distinct text (npm run bench:inlet).
 */
export const SHIPPED_WORKER_MAX_MB = 2048;

/** The package root (where `src/` and `filters/` are). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * sha256 of a filter's source with imports of this package's own `src/` written the shipped
 * way (`'/abs/eunoe/src/sdk.js'` → `'../src/sdk.js'`), so a shipped file copied elsewhere with
 * its imports pointed back at this package is still recognised; any other change is not.
 */
export function sourceHash(source: string, root = packageRoot): string {
  const absolute = `${root}${path.sep}src/`;
  const normalised = source.replaceAll(`'${absolute}`, "'../src/").replaceAll(`"${absolute}`, '"../src/');
  return createHash('sha256').update(normalised).digest('hex');
}

/** Recognises shipped filters by content: a file is shipped when its hash is one of theirs. */
export class ShippedFilters {
  /** Source hash → where that shipped filter runs under `auto`. */
  private readonly hashes: Map<string, ShippedPlacement>;

  constructor(root = packageRoot) {
    this.hashes = new Map(
      SHIPPED_FILTER_FILES.map((name) => [path.join(root, 'filters', name), SHIPPED_PLACEMENT[name]] as const)
        .filter(([file]) => existsSync(file))
        .map(([file, placement]) => [sourceHash(readFileSync(file, 'utf8'), root), placement]),
    );
  }

  /** Where `file` runs under `FILTER_ISOLATION=auto` when it is a shipped filter; false when it is not one. */
  placement(file: string): ShippedPlacement | false {
    try {
      return this.hashes.get(sourceHash(readFileSync(file, 'utf8'))) ?? false;
    } catch {
      return false;
    }
  }

  /** True when `file` holds exactly one of the shipped filters (edited copies are not shipped). */
  isShipped(file: string): boolean {
    return this.placement(file) !== false;
  }
}
