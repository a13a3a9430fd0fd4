import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/create-test-runtime.js';

/** The Markdown a user reads: the README guide, CONTRIBUTING.md and every page of docs/. */
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The lines of a page outside fenced code blocks (blank lines in their place). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's anchors of a page's headings (lower case, punctuation dropped, spaces to dashes, repeats numbered). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

describe('the documentation', () => {
  it('has a README that is a guide of at most 250 lines', () => {
    const lines = readFileSync(path.join(repoRoot, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(250);
  });

  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const file = path.join(repoRoot, page);
    const broken: string[] = [];
    proseLines(readFileSync(file, 'utf8')).forEach((line, index) => {
      const prose = line.replace(/`[^`]*`/g, '');
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [target_path, anchor] = target!.split('#') as [string, string | undefined];
        const linked = target_path ? path.resolve(path.dirname(file), target_path) : file;
        if (!existsSync(linked)) broken.push(`${page}:${index + 1}: no file ${target}`);
        else if (anchor && (!linked.endsWith('.md') || !anchors(linked).has(anchor)))
          broken.push(`${page}:${index + 1}: no anchor ${target}`);
      }
    });
    expect(broken).toEqual([]);
  });
});
