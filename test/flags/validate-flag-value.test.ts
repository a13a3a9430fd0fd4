import { describe, expect, it } from 'vitest';
import { builtinFlags } from '../../src/domain/flags/builtin-flags.js';
import type { FlagSpec } from '../../src/domain/flags/types.js';
import { splitLabels, validateFlagValue } from '../../src/domain/flags/validate-flag-value.js';

const spec = (key: string): FlagSpec => {
  const found = builtinFlags.find((flag) => flag.key === key);
  if (!found) throw new Error(`no built-in ${key}`);
  return found;
};

describe('validateFlagValue', () => {
  it.each([
    ['pin', undefined, true],
    ['pin', 'false', false],
    ['full', '0', false],
    ['nosum', 'no', false],
    ['nosum', 'OFF', false],
    ['full', 'yes', true],
    ['full', 'on', true],
    ['recent', '6', 6],
    ['recent', '0', 0],
    ['context', '+5', 5],
    ['target', '8000', 8000],
    ['weight', '1.5', 1.5],
    ['weight', '.5', 0.5],
    ['tool_penalty', '0.2', 0.2],
    ['pair_coherence', '1', 1],
    ['tag', 'décision', 'décision'],
  ])('!%s=%s is accepted as %j', (key, raw, value) => {
    expect(validateFlagValue(spec(key), raw)).toEqual({ ok: true, value });
  });

  it.each([
    ['recent', 'abc', /whole number/],
    ['recent', '2.5', /whole number/],
    ['recent', '-1', /at least 0/],
    ['context', '0', /at least 1/],
    ['recent', undefined, /needs a value/],
    ['target', '', /needs a value/],
    ['weight', 'heavy', /expects a number/],
    ['weight', '11', /at most 10/],
    ['tool_penalty', '1.5', /at most 1/],
    ['pair_coherence', 'NaN', /expects a number/],
    ['pin', 'maybe', /true\/false/],
    ['tag', undefined, /needs a value/],
    ['tag', 'x'.repeat(201), /longer than/],
  ])('!%s=%s is rejected (%s)', (key, raw, reason) => {
    const result = validateFlagValue(spec(key), raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('splitLabels', () => {
  it.each([
    ['decision', ['decision']],
    ['decision, api ,decision', ['decision', 'api']],
    [' , ', []],
    [true, []],
    [undefined, []],
  ])('%j gives %j', (value, labels) => {
    expect(splitLabels(value)).toEqual(labels);
  });
});
