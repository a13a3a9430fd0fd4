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
