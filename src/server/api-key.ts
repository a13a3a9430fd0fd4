import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/util/logger.js';
import { writeFileAtomic } from '../core/util/atomic-write.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/util/private-files.js';

/**
 * The API key: `PIPELINES_API_KEY` when set; else the key saved in `<dataDir>/api-key`;
 * else a new random key, saved there (mode 0600) and printed once with how to set your own.
 * There is no well-known default key.
 */
export function resolveApiKey(options: {
  configured?: string;
  dataDir: string;
  logger: Logger;
  print?: (line: string) => void;
}): string {
  if (options.configured) return options.configured;
  const file = path.join(options.dataDir, 'api-key');
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved) {
      options.logger.info({ file }, 'API key read from file (set PIPELINES_API_KEY to choose your own)');
      return saved;
    }
  }
  const key = `eunoe-${randomBytes(24).toString('base64url')}`;
  writeFileAtomic(file, `${key}\n`, PRIVATE_FILE_MODE, PRIVATE_DIR_MODE);
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  print(`Eunoe generated an API key: ${key}`);
  print(
    `It is saved in ${file}. Use it as the key of the Open WebUI connection, or set PIPELINES_API_KEY to choose your own.`,
  );
  options.logger.info({ file }, 'generated a new API key');
  return key;
}
