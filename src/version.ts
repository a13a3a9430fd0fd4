import { readFileSync } from 'node:fs';

/** Eunoe's version, read from package.json once (never a hand-kept string: lethes U5). */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
