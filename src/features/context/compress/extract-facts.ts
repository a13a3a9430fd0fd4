/** Kind of a literal fact (money, ratios, percentages, numbers, acronyms and proper nouns, plus dates and code identifiers). */
export type FactKind = 'money' | 'ratio' | 'percent' | 'date' | 'number' | 'identifier' | 'acronym' | 'proper-noun';

/** A literal fact found in a text. */
export interface Fact {
  kind: FactKind;
  text: string;
}

const PATTERNS: Array<[FactKind, RegExp]> = [
  ['money', /\$\s?\d[\d,]*(\.\d+)?\s?[kKmMbB]?|\b\d[\d,]*(\.\d+)?\s?(?:USD|EUR|GBP|€|£)/g],
  ['ratio', /\b\d+(\.\d+)?x\b/g],
  ['percent', /\b\d+(\.\d+)?\s?%/g],
  [
    'date',
    /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December)(?: \d{4})?\b/g,
  ],
  ['number', /\b\d[\d,]*\.\d+\b|\b\d{2,}\b/g],
  ['identifier', /`[^`\n]{2,60}`|\b[a-z]+(?:_[a-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/g],
  ['acronym', /\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*\b/g],
  ['proper-noun', /\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b/g],
];

/** Capitalised words that start sentences rather than name things (skipped when alone). */
const STOP = new Set(
  'I A An The This That These Those It Its We You Your He She They My Our Their What When Where Which Who Why How Yes No Ok Okay Sure Thanks Thank Please Hi Hello Hey Also And But Or So If Then Here There Let Can Could Would Should Will Do Does Did Is Are Was Were Be Not Sounds Great Good Nice Sorry Just Maybe Well Note User Assistant Summary Question Answer'.split(
    ' ',
  ),
);

/** Normalised form for comparison: collapsed whitespace, trimmed, lower case, backticks removed. */
export function normalizeFact(text: string): string {
  return text.replace(/`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Literal facts of `text`, in pattern order, de-duplicated after normalisation; a fact inside a longer one (`100` in `$100`) is dropped. */
export function extractFacts(text: string): Fact[] {
  const seen = new Set<string>();
  const facts: Fact[] = [];
  for (const [kind, pattern] of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const value = match[0].replace(/^[.,;:\s]+|[.,;:\s]+$/g, '');
      if (!value || (kind === 'proper-noun' && !value.includes(' ') && STOP.has(value))) continue;
      const key = normalizeFact(value);
      if (key.length < 2 || seen.has(key)) continue;
      seen.add(key);
      facts.push({ kind, text: value });
    }
  }
  const keys = facts.map((fact) => normalizeFact(fact.text));
  return facts.filter(
    (_, index) =>
      !keys.some((other, at) => at !== index && other.length > keys[index]!.length && other.includes(keys[index]!)),
  );
}
