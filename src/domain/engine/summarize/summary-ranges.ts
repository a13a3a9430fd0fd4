import type { PlanEntry, SummaryRange } from '../types.js';

/** Contiguous runs of `summarize` entries (system messages in between do not split a run). */
export function summaryRanges(entries: readonly PlanEntry[]): SummaryRange[] {
  const ranges: SummaryRange[] = [];
  let current: SummaryRange | undefined;
  for (const entry of entries) {
    if (entry.disposition === 'summarize') {
      if (!current) {
        current = { fromIndex: entry.index, toIndex: entry.index, ids: [], tokens: 0 };
        ranges.push(current);
      }
      current.toIndex = entry.index;
      current.ids.push(entry.id);
      current.tokens += entry.tokens;
    } else if (entry.role !== 'system' && entry.role !== 'developer') current = undefined;
  }
  return ranges;
}
