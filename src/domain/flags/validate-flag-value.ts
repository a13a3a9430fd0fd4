import type { FlagSpec, FlagValue } from './types.js';

/** Result of checking one typed value against its spec. */
export type ValidatedValue = { ok: true; value: FlagValue } | { ok: false; reason: string };

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
/** Longest accepted string value (tags, labels). */
export const MAX_STRING_LENGTH = 200;

function bounded(spec: FlagSpec, value: number, what: string): ValidatedValue {
  if (spec.min !== undefined && value < spec.min)
    return { ok: false, reason: `${spec.key} must be at least ${spec.min}` };
  if (spec.max !== undefined && value > spec.max)
    return { ok: false, reason: `${spec.key} must be at most ${spec.max}` };
  return Number.isFinite(value) ? { ok: true, value } : { ok: false, reason: `${spec.key} expects ${what}` };
}

/**
 * Check a typed value (undefined = no `=value`) against a flag spec (values are checked, not
 * just presence). Booleans accept no value or true/false/1/0/yes/no/on/off.
 */
export function validateFlagValue(spec: FlagSpec, raw: string | undefined): ValidatedValue {
  const example = spec.example ? ` (e.g. ${spec.example})` : '';
  if (spec.kind === 'boolean') {
    if (raw === undefined) return { ok: true, value: true };
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return { ok: true, value: true };
    if (FALSE_WORDS.has(word)) return { ok: true, value: false };
    return { ok: false, reason: `${spec.key} expects no value or true/false` };
  }
  if (raw === undefined || raw.trim() === '') return { ok: false, reason: `${spec.key} needs a value${example}` };
  const text = raw.trim();
  if (spec.kind === 'integer') {
    return INTEGER.test(text)
      ? bounded(spec, Number(text), 'a whole number')
      : { ok: false, reason: `${spec.key} expects a whole number${example}` };
  }
  if (spec.kind === 'number') {
    return NUMBER.test(text)
      ? bounded(spec, Number(text), 'a number')
      : { ok: false, reason: `${spec.key} expects a number${example}` };
  }
  if (raw.length > MAX_STRING_LENGTH)
    return { ok: false, reason: `${spec.key} is longer than ${MAX_STRING_LENGTH} characters` };
  return { ok: true, value: raw };
}

/** Split a tag list value (`decision` or `"decision,api"`) into trimmed, non-empty labels. */
export function splitLabels(value: FlagValue | undefined): string[] {
  if (typeof value !== 'string') return [];
  return [
    ...new Set(
      value
        .split(',')
        .map((label) => label.trim())
        .filter((label) => label !== ''),
    ),
  ];
}
