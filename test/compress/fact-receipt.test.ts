import { describe, expect, it } from 'vitest';
import { extractFacts } from '../../src/features/context/compress/extract-facts.js';
import { appendFacts, factReceipt } from '../../src/features/context/compress/fact-receipt.js';

describe('extractFacts (money, ratios, percentages, numbers, acronyms and names, plus dates and identifiers)', () => {
  it('finds amounts, percents, ratios, dates, numbers, ids, code identifiers and names', () => {
    const text =
      'Alice Martin paid $1,250.50 on 2025-03-14 for invoice INV-2291, a 15% rise and 3x faster; call `resetCache()` or max_retry_count, launch code ZEBRA-42, 14 March.';
    const facts = extractFacts(text).map((fact) => `${fact.kind}:${fact.text}`);
    expect(facts).toEqual(
      expect.arrayContaining([
        'money:$1,250.50',
        'percent:15%',
        'ratio:3x',
        'date:2025-03-14',
        'date:14 March',
        'acronym:INV-2291',
        'identifier:`resetCache()`',
        'identifier:max_retry_count',
        'acronym:ZEBRA-42',
        'proper-noun:Alice Martin',
      ]),
    );
  });

  it('skips sentence starters and facts contained in a longer fact', () => {
    const facts = extractFacts('The total is $300. Thanks! Order ORD-1003.').map((fact) => fact.text);
    expect(facts).toContain('$300');
    expect(facts).toContain('ORD-1003');
    expect(facts).not.toContain('300');
    expect(facts).not.toContain('1003');
    expect(facts).not.toContain('The');
    expect(facts).not.toContain('Thanks');
  });
});

describe('factReceipt', () => {
  const sources = [
    { id: 'a', text: 'My flight LH-440 leaves on 2025-06-01 and costs $820.' },
    { id: 'b', text: 'Sounds good, see you in Lisbon.' },
  ];

  it('lists the facts missing from the summary (case and whitespace insensitive) and where they were', () => {
    const receipt = factReceipt(sources, 'User flies lh-440 on 2025-06-01 to   lisbon.');
    expect(receipt.missing.map((fact) => fact.text)).toEqual(['$820']);
    expect(receipt.missingIn).toEqual(['a']);
    expect(receipt.checked).toBe(4);
    expect(receipt.action).toBe('reported');
  });

  it('is clean when everything survived, and append adds a Facts line', () => {
    expect(factReceipt(sources, 'LH-440, 2025-06-01, $820, Lisbon').missing).toEqual([]);
    const receipt = factReceipt(sources, 'A trip.');
    expect(appendFacts('A trip.', receipt.missing)).toBe('A trip.\nFacts: $820; 2025-06-01; LH-440; Lisbon');
    expect(factReceipt(sources, appendFacts('A trip.', receipt.missing)).missing).toEqual([]);
  });
});
