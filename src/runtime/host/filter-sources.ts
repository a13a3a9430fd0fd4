import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { SHIPPED_FILTER_FILES } from './isolation/shipped-filters.js';
import { fileStem, isFilterFileName } from './load-filter-file.js';

/** Where a filter file comes from: shipped with the package, or one of the user's folders. */
export type FilterOrigin = 'package' | 'user';

/**
 * The folders filters load from, highest precedence first: the upload folder (what the API writes), the
 * user's folder (FILTERS_DIR), then the package's shipped files (those enabled). A file replaces the ones
 * of the same stem below it. The package's shipped files are never written or deleted through the API.
 */
export interface FilterSources {
  /** The user's folder (FILTERS_DIR); watched. */
  userDir: string;
  /**
   * Where uploads and `/pipelines/add` write (default `userDir`). Differs from `userDir` only when that is
   * the package's own `filters/` (the default layout): then the API writes `DATA_DIR/filters`.
   */
  uploadDir?: string;
  /** The package's `filters/` folder. */
  packageDir?: string;
  /** File names in `packageDir` to load (SHIPPED_FILTERS). */
  shipped?: readonly string[];
}

/** A file not loaded because a file of the same stem in a folder of higher precedence replaces it. */
export interface OverriddenFile {
  file: string;
  by: string;
  origin: FilterOrigin;
}

function filterFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter(isFilterFileName)
    .sort()
    .map((name) => path.join(dir, name));
}

/** The folder's real path (a symlink to the package's folder is the package's folder). */
function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** True when `a` and `b` are the same folder (symlinks resolved). */
export function sameDir(a: string, b: string | undefined): boolean {
  return b !== undefined && realDir(a) === realDir(b);
}

/**
 * True for a file the package ships (a shipped name in the package's `filters/`, enabled or not), in every
 * layout: such a file belongs to Eunoe, not to the user, even when FILTERS_DIR is that folder.
 */
export function isPackageFile(sources: FilterSources, file: string): boolean {
  if (!sameDir(path.dirname(file), sources.packageDir)) return false;
  const name = path.basename(file);
  return (SHIPPED_FILTER_FILES as readonly string[]).includes(name) || (sources.shipped ?? []).includes(name);
}

/** `package` for a file the package ships, else `user`. */
export function originOf(sources: FilterSources, file: string): FilterOrigin {
  return isPackageFile(sources, file) ? 'package' : 'user';
}

/** The user's folders, highest precedence first (the upload folder, then FILTERS_DIR). */
export function userDirs(sources: FilterSources): string[] {
  const upload = sources.uploadDir;
  return upload && !sameDir(upload, sources.userDir) ? [upload, sources.userDir] : [sources.userDir];
}

/**
 * Where the API writes filter files: FILTERS_DIR, unless that is the package's own `filters/` (the default
 * layout), where the shipped files must stay as shipped: then `DATA_DIR/filters`.
 */
export function uploadDirFor(options: { filtersDir: string; packageDir: string; dataDir: string }): string {
  return sameDir(options.filtersDir, options.packageDir) ? path.join(options.dataDir, 'filters') : options.filtersDir;
}

/**
 * Every filter file to load: the user's folders first (the upload folder, then FILTERS_DIR, each sorted), then
 * the enabled shipped files. A file whose stem a folder above already gave is not loaded (`overridden` lists
 * them): an uploaded `turn-limit.ts` replaces the shipped one, and deleting it brings the shipped one back.
 */
export function listFilterFiles(sources: FilterSources): { files: string[]; overridden: OverriddenFile[] } {
  const files: string[] = [];
  const overridden: OverriddenFile[] = [];
  const byStem = new Map<string, string>();
  const consider = (file: string, origin: FilterOrigin) => {
    const by = byStem.get(fileStem(file));
    if (by) {
      overridden.push({ file, by, origin });
      return;
    }
    byStem.set(fileStem(file), file);
    files.push(file);
  };
  for (const dir of userDirs(sources))
    for (const file of filterFilesIn(dir)) if (!isPackageFile(sources, file)) consider(file, 'user');
  if (sources.packageDir)
    for (const name of [...(sources.shipped ?? [])].sort()) {
      const file = path.join(sources.packageDir, name);
      if (existsSync(file)) consider(file, 'package');
    }
  return { files, overridden };
}
