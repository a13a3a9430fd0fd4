import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileStem, isFilterFileName } from './load-filter-file.js';

/** Where a filter file comes from: shipped with the package, or the user's FILTERS_DIR. */
export type FilterOrigin = 'package' | 'user';

/** The folders filters load from: the package's shipped ones (those enabled) and the user's folder. */
export interface FilterSources {
  /** The user's folder (FILTERS_DIR); watched, written by uploads. */
  userDir: string;
  /** The package's `filters/` folder. */
  packageDir?: string;
  /** File names in `packageDir` to load (SHIPPED_FILTERS). */
  shipped?: readonly string[];
}

function filterFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter(isFilterFileName)
    .sort()
    .map((name) => path.join(dir, name));
}

const sameDir = (a: string, b: string | undefined) => b !== undefined && path.resolve(a) === path.resolve(b);

/** `package` for an enabled shipped file in the package's folder, else `user`. */
export function originOf(sources: FilterSources, file: string): FilterOrigin {
  return sameDir(path.dirname(file), sources.packageDir) && (sources.shipped ?? []).includes(path.basename(file))
    ? 'package'
    : 'user';
}

/** The enabled shipped files that a user file of the same stem does not override. */
function shippedFiles(sources: FilterSources, userStems: Set<string>): { files: string[]; overridden: string[] } {
  if (!sources.packageDir || sameDir(sources.userDir, sources.packageDir)) return { files: [], overridden: [] };
  const files: string[] = [];
  const overridden: string[] = [];
  for (const name of [...(sources.shipped ?? [])].sort()) {
    const file = path.join(sources.packageDir, name);
    if (!existsSync(file)) continue;
    (userStems.has(fileStem(file)) ? overridden : files).push(file);
  }
  return { files, overridden };
}

/**
 * Every filter file to load: the user's folder first (sorted), then the enabled shipped files it
 * does not override (a user file with the same stem replaces the shipped one; `overridden` lists them).
 */
export function listFilterFiles(sources: FilterSources): { files: string[]; overridden: string[] } {
  const user = filterFilesIn(sources.userDir);
  const shipped = shippedFiles(sources, new Set(user.map(fileStem)));
  return { files: [...user, ...shipped.files], overridden: shipped.overridden };
}

/** The shipped file a user file of this stem overrides (or overrode, once deleted), if any. */
export function shippedTwin(sources: FilterSources, userFile: string): string | undefined {
  if (!sources.packageDir || originOf(sources, userFile) === 'package') return undefined;
  if (sameDir(sources.userDir, sources.packageDir)) return undefined;
  const name = (sources.shipped ?? []).find((entry) => fileStem(entry) === fileStem(userFile));
  return name ? path.join(sources.packageDir, name) : undefined;
}
