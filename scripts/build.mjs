#!/usr/bin/env node
// Compiles src/ to plain JavaScript in dist/, file by file (esbuild, no bundling), and copies the files beside the
// code (workers' .mjs entries, the dashboard's page, the Function's template, data). dist/ sits at src/'s depth, so
// every path a module takes from its own URL (../../../pricing, the package root) is the same in both trees.
// `npm start`, `npx eunoe` and the test suite's servers run dist/: Node imports it without a TypeScript loader in
// front of every module. Plain JavaScript because it runs before anything can compile TypeScript.
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(root, 'src');
const DIST = path.join(root, 'dist');
const STAMP = path.join(DIST, '.built-from');

function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

/** What the tree is built from: every file's path, size and change time (a cheap fingerprint, no reading). */
function fingerprint(files) {
  return files
    .map((file) => {
      const stat = statSync(file);
      return `${path.relative(SRC, file)} ${stat.size} ${stat.mtimeMs}`;
    })
    .sort()
    .join('\n');
}

/** Build dist/ unless it was built from exactly these sources. Returns true when it compiled. */
export async function build({ force = false, quiet = false } = {}) {
  const files = walk(SRC);
  const print = fingerprint(files);
  if (!force && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === print) return false;
  const { build: esbuild } = await import('esbuild');
  const started = Date.now();
  const code = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  // Files are overwritten in place (a server running from dist/ keeps finding the modules it imports late);
  // what no source makes any more is removed after.
  const made = new Set([STAMP]);
  for (const file of files) {
    const target = path.join(DIST, path.relative(SRC, file));
    if (!file.endsWith('.ts')) made.add(target);
    else if (!file.endsWith('.d.ts')) for (const end of ['.js', '.js.map']) made.add(target.replace(/\.ts$/, end));
  }
  await esbuild({
    entryPoints: code,
    outdir: DIST,
    outbase: SRC,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const file of files) {
    if (file.endsWith('.ts')) continue;
    const target = path.join(DIST, path.relative(SRC, file));
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  for (const file of walk(DIST)) if (!made.has(file)) rmSync(file);
  writeFileSync(STAMP, print);
  if (!quiet) console.error(`eunoe: compiled ${code.length} files to dist/ in ${Date.now() - started} ms`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await build({ force: process.argv.includes('--force') });
}
