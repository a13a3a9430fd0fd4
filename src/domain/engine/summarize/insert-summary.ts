import type { PlanResult } from '../types.js';

/** Header of the summary block. */
export const SUMMARY_HEADER = 'Summary of earlier conversation (older messages were condensed):';

/**
 * The messages with a summary block inserted where the plan says, as a `system` message so
 * it can never make two user messages in a row. Returns a new array; input untouched.
 */
export function insertSummary(result: PlanResult, summary: string): unknown[] {
  const text = summary.trim();
  if (!text) return result.messages.slice();
  const block = { role: 'system', content: `${SUMMARY_HEADER}\n${text}` };
  const at = Math.min(result.plan.summaryInsertAt, result.messages.length);
  return [...result.messages.slice(0, at), block, ...result.messages.slice(at)];
}
