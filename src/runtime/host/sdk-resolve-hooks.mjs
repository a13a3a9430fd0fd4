// Module resolution hook (node:module register) for filter files outside this package:
// - `eunoe` and `eunoe/…` resolve to this package from any folder (a FILTERS_DIR outside the
//   repository, a mounted volume): resolved as if imported from this package's own package.json,
//   they go through its `exports` (self-reference), so every filter shares the host's single copy
//   of the SDK and zod;
// - a `.ts` file outside node_modules is an ES module even when no package.json says
//   `"type": "module"` (a bare mounted folder), as filters are written.
// Plain JS: hooks load before tsx compiles anything.
import { existsSync } from 'node:fs';

const anchor = new URL('../../../package.json', import.meta.url).href;
// Compiled (dist/), `eunoe` is the compiled SDK beside this file: the host's own copy, whatever package.json exports.
const compiledSdk = new URL('../../sdk.js', import.meta.url);
const sdk = existsSync(compiledSdk) ? compiledSdk.href : undefined;

/** @type {import('node:module').ResolveHook} */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'eunoe' && sdk) return { url: sdk, format: 'module', shortCircuit: true };
  if (specifier === 'eunoe' || specifier.startsWith('eunoe/')) {
    return nextResolve(specifier, { ...context, parentURL: anchor });
  }
  const resolved = await nextResolve(specifier, context);
  if (
    resolved.format === 'commonjs' &&
    resolved.url.startsWith('file:') &&
    /\.ts(?:\?|$)/.test(resolved.url) &&
    !resolved.url.includes('/node_modules/')
  ) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
}
