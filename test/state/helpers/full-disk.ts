import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A real small file system: a tmpfs of `size` (e.g. '4m') mounted on `dir`, unmounted by the returned function.
 * Mounting needs root (CI runs as root); without it this throws: the tests that use it fail, they are not skipped.
 */
export function mountTmpfs(dir: string, size: string): () => void {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`this test mounts a ${size} tmpfs on ${dir} and needs root for it: ${(error as Error).message}`);
  }
  return () => execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
}

/** Fill the file system holding `dir` to the last byte with one file; returns its path. */
export function fillUp(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  try {
    for (let chunk = 1024 * 1024; chunk >= 1; chunk = Math.floor(chunk / 2)) {
      const block = Buffer.alloc(chunk, 1);
      for (;;) {
        try {
          fs.writeSync(fd, block);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

/**
 * An accounting outlet of one gpt-4o reply `id` (1,200 prompt + 30 completion tokens) in chat `c-<tag>` of user
 * `u-<tag>`.
 */
export function ledgerOutletBody(tag: string, id: string) {
  return {
    body: {
      model: 'openai/gpt-4o',
      messages: [
        { id: `u-${id}`, role: 'user', content: 'Hi' },
        { id, role: 'assistant', content: 'Hello!', usage: { prompt_tokens: 1200, completion_tokens: 30 } },
      ],
      chat_id: `c-${tag}`,
      id,
    },
    user: { id: `u-${tag}`, email: `${tag}@example.com`, role: 'user' },
  };
}
