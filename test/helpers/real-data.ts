import { existsSync } from 'node:fs';

/** Set by .ci/run: tests on data outside the repository must run, and fail when it is missing. */
export const REAL_DATA_REQUIRED = process.env.EUNOE_REQUIRE_REAL_DATA === '1';

/**
 * Whether tests on a data file outside the repository (the real conversations in `../shared/data/`) run.
 * Missing on a fresh clone: they are skipped with one line saying what and why. With
 * EUNOE_REQUIRE_REAL_DATA=1 (CI) they always run, so a missing file fails them instead.
 */
export function realDataAvailable(file: string, what: string): boolean {
  if (REAL_DATA_REQUIRED || existsSync(file)) return true;
  console.warn(
    `skipped: ${what}: ${file} is not there (it lives beside the repository; EUNOE_REQUIRE_REAL_DATA=1 makes this a failure)`,
  );
  return false;
}
