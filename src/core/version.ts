import { readFileSync } from 'node:fs';

/**
 * Eunoe's version, read from package.json once: never a hand-kept string, which drifts from the
 * released version (a defect of the Python library lethes).
 */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
