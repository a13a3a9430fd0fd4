#!/usr/bin/env node
// Compiles src/ to plain JavaScript in dist/, file by file (esbuild, no bundling), and copies the files beside the
// code (workers' .mjs entries, the dashboard's page, the Function's template, data). dist/ sits at src/'s depth, so
// every path a module takes from its own URL (../../../pricing, the package root) is the same in both trees.
// `npm start`, `npx eunoe` and the test suite's servers run dist/: Node imports it without a TypeScript loader in
// front of every module. Plain JavaScript because it runs before anything can compile TypeScript.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BUILT_FROM,
  COMPILED_DIR,
  filesUnder,
  SOURCE_DIR,
  sourceFingerprint,
} from '../src/core/util/compiled-twin.mjs';

/** Build dist/ unless it was built from exactly these sources. Returns true when it compiled. */
export async function build({ force = false, quiet = false } = {}) {
  const files = filesUnder(SOURCE_DIR);
  const print = sourceFingerprint(files);
  if (!force && existsSync(BUILT_FROM) && readFileSync(BUILT_FROM, 'utf8') === print) return false;
  const { build: esbuild } = await import('esbuild');
  const started = Date.now();
  const code = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  // Files are overwritten in place (a server running from dist/ keeps finding the modules it imports late);
  // what no source makes any more is removed after.
  const made = new Set([BUILT_FROM]);
  for (const file of files) {
    const target = path.join(COMPILED_DIR, path.relative(SOURCE_DIR, file));
    if (!file.endsWith('.ts')) made.add(target);
    else if (!file.endsWith('.d.ts')) for (const end of ['.js', '.js.map']) made.add(target.replace(/\.ts$/, end));
  }
  // The fingerprint goes last: until it is written, dist/ does not count as built from these sources.
  rmSync(BUILT_FROM, { force: true });
  await esbuild({
    entryPoints: code,
    outdir: COMPILED_DIR,
    outbase: SOURCE_DIR,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const file of files) {
    if (file.endsWith('.ts')) continue;
    const target = path.join(COMPILED_DIR, path.relative(SOURCE_DIR, file));
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  for (const file of filesUnder(COMPILED_DIR)) if (!made.has(file)) rmSync(file);
  writeFileSync(BUILT_FROM, print);
  if (!quiet) console.error(`eunoe: compiled ${code.length} files to dist/ in ${Date.now() - started} ms`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await build({ force: process.argv.includes('--force') });
}
