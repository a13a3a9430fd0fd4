import type { TermCounts } from '../types.js';

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DAY = '\\d{1,2}(?:st|nd|rd|th)?';

/**
 * A date named in the text: an ISO or numeric date (2025-03-14, 14/03/2025), a month with a
 * day or a year (March 3, 3rd of March, March 2025) or a weekday. Relative words (today,
 * yesterday) name no date: they point back to the session's dated message instead.
 */
const DATE_EXPRESSION = new RegExp(
  [
    '\\b\\d{4}-\\d{1,2}-\\d{1,2}\\b',
    '\\b\\d{1,2}[./]\\d{1,2}[./]\\d{2,4}\\b',
    `\\b${MONTH}\\.?\\s+${DAY}\\b`,
    `\\b${DAY}\\s+(?:of\\s+)?${MONTH}\\b`,
    `\\b${MONTH}\\.?\\s+\\d{4}\\b`,
    '\\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\\b',
  ].join('|'),
  'i',
);

/**
 * A question about time (English first): "when …" opening a sentence or followed by an
 * auxiliary (when did/was/is…), "since when", "what/which day|date|time|week|month|year",
 * "how long ago". "What do I do when it rains?" does not count.
 */
const TIME_QUESTION =
  /(?:^|[.!?]\s+|\bsince\s+)when\b|\bwhen\s+(?:did|was|were|is|are|will|would|do|does|have|has|had)\b|\b(?:what|which)\s+(?:day|date|time|week|month|year)\b|\bhow\s+long\s+ago\b/i;

/**
 * A relative time reference: yesterday, today, tonight, tomorrow, "… ago", recently, lately,
 * "last/next/this/past week|weekend|month|year|summer|Friday|May…".
 */
const RELATIVE_TIME = new RegExp(
  `\\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately)\\b|\\b(?:last|next|this|past)\\s+(?:week|weekend|month|year|night|morning|evening|summer|winter|spring|fall|autumn|(?:mon|tues|wednes|thurs|fri|satur|sun)day|${MONTH})\\b`,
  'i',
);

/** Bit of `timeFacts`: the text names a date. */
export const NAMES_DATE = 1;
/** Bit of `timeFacts`: the text names a date or a time relative to when it was written. */
export const REFERS_TO_TIME = 2;

/** The time facts of a text, remembered on its term table (so a warm turn runs no regex on old messages). */
export function timeFacts(text: string, table?: TermCounts): number {
  if (table?.time !== undefined) return table.time;
  const facts = DATE_EXPRESSION.test(text)
    ? NAMES_DATE | REFERS_TO_TIME
    : RELATIVE_TIME.test(text)
      ? REFERS_TO_TIME
      : 0;
  if (table) table.time = facts;
  return facts;
}

/** True when the text names a date or refers to a time relative to when it was written. */
export function hasTimeReference(text: string): boolean {
  return (timeFacts(text) & REFERS_TO_TIME) !== 0;
}

/** True when the text names a date (see DATE_EXPRESSION). */
export function hasDateExpression(text: string): boolean {
  return (timeFacts(text) & NAMES_DATE) !== 0;
}

/** True when the query asks about a time or date (see TIME_QUESTION). */
export function asksAboutTime(query: string): boolean {
  return TIME_QUESTION.test(query.trim());
}
