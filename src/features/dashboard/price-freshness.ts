/**
 * A price table older than this many days is flagged on the dashboard (`/status` → `pricing.stale`). The default
 * refresh runs every 6 hours (PRICING_CRON), so a table this old means about 120 refreshes failed in a row, or
 * fetching is off (PRICING_FETCH=false) and the bundled snapshot has aged: OpenRouter adds models and changes prices
 * within weeks, so costs computed from it drift and new models go unpriced.
 */
export const STALE_PRICE_TABLE_DAYS = 30;

/** The pricing status with `staleAfterDays` and `stale` (its age above STALE_PRICE_TABLE_DAYS). */
export function withFreshness<T extends { ageSeconds: number }>(
  status: T,
): T & { staleAfterDays: number; stale: boolean } {
  return {
    ...status,
    staleAfterDays: STALE_PRICE_TABLE_DAYS,
    stale: status.ageSeconds > STALE_PRICE_TABLE_DAYS * 86_400,
  };
}
