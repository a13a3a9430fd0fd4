/** The analyzer's labels: Keep, Helpful, Maybe, Skip, Drop. */
export type Label = 'K' | 'H' | 'M' | 'S' | 'D';

/** Weight of each label in a message's score: Keep counts fully, Drop almost not at all. */
export const LABEL_WEIGHTS: Record<Label, number> = { K: 1, H: 0.75, M: 0.5, S: 0.25, D: 0.05 };

const WORDS: Record<string, Label> = {
  k: 'K',
  keep: 'K',
  h: 'H',
  helpful: 'H',
  m: 'M',
  maybe: 'M',
  s: 'S',
  skip: 'S',
  d: 'D',
  drop: 'D',
};

/** A label from a word or letter (`keep`, `K`, `"H"`), else undefined. */
function toLabel(value: unknown): Label | undefined {
  if (typeof value !== 'string') return undefined;
  return WORDS[
    value
      .trim()
      .replace(/^["'`[(]+|["'`\]).,;:]+$/g, '')
      .toLowerCase()
  ];
}

/** The first JSON value (object or array) in `text`, if it parses. */
function firstJson(text: string): unknown {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const end = Math.max(text.lastIndexOf(']'), text.lastIndexOf('}'));
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/**
 * Labels for messages 1..count from a model answer in any of three formats: JSON (an array
 * of labels, an object `{"1":"K"}` or `{"labels":[…]}`), `index: label` lines, or a bare
 * sequence of labels (`K H M S`, `KHMSD`). Missing positions are undefined.
 */
export function parseLabels(answer: string, count: number): (Label | undefined)[] {
  const labels: (Label | undefined)[] = new Array(count).fill(undefined);
  const text = answer.replace(/<think>[\s\S]*?<\/think>/g, '').replace(/```(?:json)?/g, '');
  let json = firstJson(text);
  if (json && typeof json === 'object' && !Array.isArray(json) && Array.isArray((json as { labels?: unknown }).labels))
    json = (json as { labels: unknown[] }).labels;
  if (Array.isArray(json)) {
    json.slice(0, count).forEach((value, index) => (labels[index] = toLabel(value)));
    if (labels.some(Boolean)) return labels;
  } else if (json && typeof json === 'object') {
    for (const [key, value] of Object.entries(json)) {
      const index = Number.parseInt(key, 10) - 1;
      if (index >= 0 && index < count) labels[index] = toLabel(value);
    }
    if (labels.some(Boolean)) return labels;
  }
  let lines = 0;
  for (const match of text.matchAll(/^\s*\[?#?(\d+)\]?\s*[:.)=-]\s*\**([A-Za-z]+)/gm)) {
    const index = Number(match[1]) - 1;
    if (index >= 0 && index < count) {
      labels[index] = toLabel(match[2]);
      lines += 1;
    }
  }
  if (lines > 0) return labels;
  const tokens =
    text.match(/\b(?:[Kk]eep|[Hh]elpful|[Mm]aybe|[Ss]kip|[Dd]rop|KEEP|HELPFUL|MAYBE|SKIP|DROP|[KHMSD])\b/g) ?? [];
  const compact =
    tokens.length === 0 && /^[KHMSD\s,]+$/.test(text.trim()) ? text.trim().replace(/[\s,]/g, '').split('') : tokens;
  compact.slice(0, count).forEach((value, index) => (labels[index] = toLabel(value)));
  return labels;
}
