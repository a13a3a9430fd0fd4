// Where this package's sources are compiled to JavaScript (dist/, by scripts/build.mjs), and whether dist/ was built
// from exactly the sources beside it. Plain JS: thread entries read it before anything can compile TypeScript.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package root (this file is src/core/util/compiled-twin.mjs, or its copy in dist/). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SOURCE_DIR = path.join(packageRoot, 'src');
export const COMPILED_DIR = path.join(packageRoot, 'dist');
/** The file in dist/ that holds the fingerprint of the sources it was built from. */
export const BUILT_FROM = path.join(COMPILED_DIR, '.built-from');

/** Every file under `dir`, recursively. */
export function filesUnder(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(full, out);
    else out.push(full);
  }
  return out;
}

/** What a build is made from: every source file's path, size and change time (stat only, no reading). */
export function sourceFingerprint(files = filesUnder(SOURCE_DIR)) {
  return files
    .map((file) => {
      const stat = statSync(file);
      return `${path.relative(SOURCE_DIR, file)} ${stat.size} ${stat.mtimeMs}`;
    })
    .sort()
    .join('\n');
}

/**
 * The compiled twin of a source module (`sourceUrl`, a file under src/) as a file: URL, when dist/ was built from
 * exactly the current sources; otherwise undefined (dist/ missing or stale: the caller runs the source).
 */
export function compiledTwin(sourceUrl) {
  const source = fileURLToPath(sourceUrl);
  const relative = path.relative(SOURCE_DIR, source);
  if (relative.startsWith('..')) return undefined;
  const twin = path.join(COMPILED_DIR, relative.replace(/\.ts$/, '.js'));
  if (!existsSync(twin) || !existsSync(BUILT_FROM)) return undefined;
  try {
    return readFileSync(BUILT_FROM, 'utf8') === sourceFingerprint() ? pathToFileURL(twin).href : undefined;
  } catch {
    return undefined; // a build under way: run the source
  }
}

/**
 * Import a thread's entry module given the URL of its TypeScript source (`./worker-main.ts` beside the caller):
 * the compiled file beside it when the caller runs from dist/; from src/, its compiled twin when dist/ is current;
 * otherwise the source itself under tsx (worker threads do not inherit `--import tsx` on Node 20).
 */
export async function importThreadEntry(sourceUrl) {
  const compiled = new URL(sourceUrl.href.replace(/\.ts$/, '.js'));
  const twin = existsSync(compiled) ? compiled.href : compiledTwin(sourceUrl);
  if (twin) return import(twin);
  const { register } = await import('tsx/esm/api');
  register();
  return import(sourceUrl.href);
}
