/**
 * True when this code runs compiled to JavaScript (dist/, what `npm start` runs), false when it runs from its
 * TypeScript source (tsx, vitest). Every module of a tree is compiled or none is, so this module's own URL tells.
 */
export const RUNNING_COMPILED = import.meta.url.endsWith('.js');
