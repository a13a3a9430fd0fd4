import { mean } from './metrics.js';

/** Renders rows as a Markdown table with right-aligned numeric-looking cells. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const numeric = (cell: string): boolean => /^[-+]?[\d.,]+\s*(%|×|ms|µs|s|\$)?$|^\$/.test(cell.trim());
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => (numeric(cell) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Formats a share as a percentage with one decimal. */
export function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/**
 * The "tokens sent (mean; max)" table of a recall benchmark: a row per method, a column per budget (headed
 * `label(budget)`), each cell the mean and the largest of `sent(method, budget)`.
 */
export function tokensSentTable(
  methods: readonly string[],
  budgets: readonly number[],
  label: (budget: number) => string,
  sent: (method: string, budget: number) => number[],
): string {
  return markdownTable(
    ['method', ...budgets.map(label)],
    methods.map((method) => [
      method,
      ...budgets.map((budget) => {
        const tokens = sent(method, budget);
        return `${Math.round(mean(tokens))}; ${Math.max(...tokens)}`;
      }),
    ]),
  );
}
