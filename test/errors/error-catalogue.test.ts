import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/errors/index.js';
import { repoRoot } from '../helpers/create-test-runtime.js';

/** Codes of Node's own that the source compares against (a worker's heap limit, a TLS name mismatch): never answered by Eunoe. */
const NODE_CODES = new Set(['ERR_WORKER_OUT_OF_MEMORY', 'ERR_TLS_CERT_ALTNAME_INVALID']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** The rows of the docs' error table: each row's status cell and its codes. */
function documentedCodes(): Map<string, string> {
  const text = readFileSync(path.join(repoRoot, 'docs/http-api.md'), 'utf8');
  const section = text.slice(text.indexOf('## Error codes'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| status')));
  const rows = new Map<string, string>();
  for (const line of table.split('\n').filter((row) => row.startsWith('| '))) {
    const [status, codes] = line
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    for (const code of codes!.matchAll(/`(ERR_[A-Z_]+)`/g)) rows.set(code[1]!, status!);
  }
  return rows;
}

describe('the error catalogue (src/core/errors/codes.ts)', () => {
  it('holds every error code the source uses', () => {
    const used = new Set<string>();
    for (const file of [...sourceFiles(path.join(repoRoot, 'src')), ...sourceFiles(path.join(repoRoot, 'filters'))])
      for (const match of readFileSync(file, 'utf8').matchAll(/['"`](ERR_[A-Z_]+)['"`]/g)) used.add(match[1]!);
    const unknown = [...used].filter((code) => !(code in ERROR_CODES) && !NODE_CODES.has(code));
    expect(unknown).toEqual([]);
  });

  it("is exactly the docs' error table, each code with its status", () => {
    const documented = documentedCodes();
    expect([...documented.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      if (typeof status === 'number') expect(documented.get(code), code).toContain(String(status));
    }
  });
});
