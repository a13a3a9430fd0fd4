// Module resolution hook (node:module register) for filter files outside this package:
// - `eunoe`, `eunoe/shipped` and `eunoe/…` resolve to this package from any folder (a FILTERS_DIR outside the
//   repository, a mounted volume): resolved as if imported from this package's own package.json,
//   they go through its `exports` (self-reference), so every filter shares the host's single copy
//   of the SDK and zod;
// - a `.ts` file outside node_modules is an ES module even when no package.json says
//   `"type": "module"`, as filters are written; so is a `.js` file with no package.json above it at all (a bare
//   mounted folder: Node would guess its format and then resolve its imports without these hooks).
// Plain JS: hooks load before tsx compiles anything.
import { existsSync } from 'node:fs';

const anchor = new URL('../../../package.json', import.meta.url).href;
// Compiled (dist/), the package's entries are the compiled files beside this one: the host's own copies, whatever
// package.json exports says (`eunoe` → sdk.js, `eunoe/shipped` → sdk-shipped.js).
const compiledEntries = new Map(
  [
    ['eunoe', new URL('../../sdk.js', import.meta.url)],
    ['eunoe/shipped', new URL('../../sdk-shipped.js', import.meta.url)],
  ]
    .filter(([, url]) => existsSync(url))
    .map(([specifier, url]) => [specifier, url.href]),
);

/** @type {import('node:module').ResolveHook} */
export async function resolve(specifier, context, nextResolve) {
  const compiled = compiledEntries.get(specifier);
  if (compiled) return { url: compiled, format: 'module', shortCircuit: true };
  if (specifier === 'eunoe' || specifier.startsWith('eunoe/')) {
    return nextResolve(specifier, { ...context, parentURL: anchor });
  }
  const resolved = await nextResolve(specifier, context);
  if (
    resolved.format === 'commonjs' &&
    resolved.url.startsWith('file:') &&
    !resolved.url.includes('/node_modules/') &&
    (/\.ts(?:\?|$)/.test(resolved.url) || (/\.js(?:\?|$)/.test(resolved.url) && !underPackageJson(resolved.url)))
  ) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
}

/** Folders already looked up: does a package.json sit in it or above it? */
const packageJsonAbove = new Map();

/** True when a package.json sits in the folder of `url` or above it (it then says what a `.js` file is). */
function underPackageJson(url) {
  const seen = [];
  let found = false;
  for (let dir = new URL('.', url); ; dir = new URL('..', dir)) {
    const known = packageJsonAbove.get(dir.href);
    if (known !== undefined) {
      found = known;
      break;
    }
    seen.push(dir.href);
    if (existsSync(new URL('package.json', dir))) {
      found = true;
      break;
    }
    if (dir.pathname === '/') break;
  }
  for (const dir of seen) packageJsonAbove.set(dir, found);
  return found;
}
