import { extractFacts, normalizeFact, type Fact } from './extract-facts.js';

/** How missing facts are handled: appended to the summary, source kept instead, or only reported. */
export type FactReceiptMode = 'append' | 'keep_source' | 'report';

/** The receipt of one summary: which literal facts of its source survived. */
export interface FactReceipt {
  /** Ids of the summarized messages. */
  ids: string[];
  checked: number;
  missing: Fact[];
  /** Ids of the source messages holding a missing fact. */
  missingIn: string[];
  /** What was done about the missing facts. */
  action: 'none' | 'appended' | 'kept_source' | 'reported';
}

/**
 * Checks that every literal fact of the sources appears (as a normalised substring) in the
 * summary; lists the missing ones and the messages holding them.
 */
export function factReceipt(sources: ReadonlyArray<{ id: string; text: string }>, summary: string): FactReceipt {
  const haystack = normalizeFact(summary);
  const missing: Fact[] = [];
  const missingIn = new Set<string>();
  const seen = new Set<string>();
  let checked = 0;
  for (const source of sources) {
    for (const fact of extractFacts(source.text)) {
      const key = normalizeFact(fact.text);
      if (seen.has(key)) continue;
      seen.add(key);
      checked += 1;
      if (!haystack.includes(key)) {
        missing.push(fact);
        missingIn.add(source.id);
      }
    }
  }
  return {
    ids: sources.map((source) => source.id),
    checked,
    missing,
    missingIn: [...missingIn],
    action: missing.length ? 'reported' : 'none',
  };
}

/** The summary with a `Facts:` line listing the missing facts (what `append` mode sends). */
export function appendFacts(summary: string, missing: readonly Fact[]): string {
  if (missing.length === 0) return summary;
  return `${summary}\nFacts: ${missing.map((fact) => fact.text).join('; ')}`;
}
