import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * What starts a process, a Redis, a browser or a Python interpreter in a test file (a package copy is started from
 * uncached sources): each costs seconds of a core (a server process is 2–3 s of CPU before it answers), far more
 * than the file's size says.
 */
const STARTERS = [
  'startServerProcess',
  'startCapServers',
  'capServersForTests',
  'shippedServerForTests',
  'startOwnedRedis',
  'launchChromium',
  'chromiumForTests',
  'runFunction',
  'copyPackage',
];
const PROCESS_STARTS = new RegExp(`\\b(${STARTERS.join('|')}|spawn|spawnSync|execFile|execFileSync)\\(`, 'g');
/** What one such start costs, in the unit of the results cache (ms), when a file has no measured duration yet. */
const MS_PER_START = 3000;

/** A file's expected duration: measured (vitest's results cache) if it has run before, else estimated from its text. */
function expectedMs(measured: number | undefined, file: string): number {
  if (measured !== undefined) return measured;
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 0;
  }
  return (text.match(PROCESS_STARTS)?.length ?? 0) * MS_PER_START + text.length / 100;
}

/**
 * Longest files first, so that the last file to start is a short one and the workers finish together: the suite's
 * wall time is then close to its total time divided by the workers, not that plus its slowest file started last.
 * Vitest's own order does the same only when every file has a cached duration, and puts failed files first; a fresh
 * clone, a new file or a partial run leaves it ordering by size, which put single-test files that start three server
 * processes near the end. Files without a cached duration get an estimate from the process starts their text names.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const cost = new Map<TestSpecification, number>();
    for (const file of files) {
      const key = `${file.project.name}:${path.relative(root, file.moduleId)}`;
      cost.set(file, expectedMs(this.ctx.cache.getFileTestResults(key)?.duration, file.moduleId));
    }
    return [...files].sort(
      (a, b) => cost.get(b)! - cost.get(a)! || (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0),
    );
  }
}
