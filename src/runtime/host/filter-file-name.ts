import { ValidationError } from '../../core/errors/index.js';
import { FILTER_EXTENSIONS } from './load-filter-file.js';

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/**
 * Validate a client-supplied filter file name: a bare name (no directories, no `..`, no
 * hidden files) ending in .ts/.mts/.js/.mjs. Throws ValidationError (400) otherwise.
 */
export function safeFilterFileName(raw: string): string {
  const name = raw.trim();
  if (name.includes('/') || name.includes('\\') || name.includes('\0') || name.includes('..')) {
    throw new ValidationError(`Invalid file name "${raw}": no paths allowed`);
  }
  if (!FILTER_EXTENSIONS.some((extension) => name.endsWith(extension)) || name.endsWith('.d.ts')) {
    throw new ValidationError(`Only filter source files are allowed (${FILTER_EXTENSIONS.join(', ')})`);
  }
  if (!SAFE_NAME.test(name))
    throw new ValidationError(`Invalid file name "${raw}": use letters, digits, "_", "-" and "."`);
  return name;
}
