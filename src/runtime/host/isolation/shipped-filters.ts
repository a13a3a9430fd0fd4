import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The filters that come with Eunoe (files in the package's `filters/`). */
export const SHIPPED_FILTER_FILES = [
  'accounting.ts',
  'context.ts',
  'openai-proxy.ts',
  'spend-limit.ts',
  'system-prefix.ts',
  'turn-limit.ts',
] as const;

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
  private readonly hashes: Set<string>;

  constructor(root = packageRoot) {
    this.hashes = new Set(
      SHIPPED_FILTER_FILES.map((name) => path.join(root, 'filters', name))
        .filter((file) => existsSync(file))
        .map((file) => sourceHash(readFileSync(file, 'utf8'), root)),
    );
  }

  /** True when `file` holds exactly one of the shipped filters (edited copies are not shipped). */
  isShipped(file: string): boolean {
    try {
      return this.hashes.has(sourceHash(readFileSync(file, 'utf8')));
    } catch {
      return false;
    }
  }
}
