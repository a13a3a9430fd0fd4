import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../../src/core/config.js';
import { createLogger } from '../../../src/core/util/logger.js';

/** A temp PRICING_DIR, a config pointing at it, and a logger whose lines can be read back. */
export function harness(env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-pricing-'));
  const lines: Array<{ level: number; msg: string }> = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  const config = (extra: Record<string, string> = {}) => loadConfig({ PRICING_DIR: dir, ...env, ...extra }, dir);
  return { dir, lines, logger, config, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
