/** Quote one CSV field (RFC 4180) and neutralise spreadsheet formulas (`=`, `+`, `-`, `@` at the start of text). */
export function csvField(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text) && !/^-?\d/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV lines (each ending in CRLF) of rows, columns in the given order. */
export function csvLines(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  let text = '';
  for (const row of rows) text += `${columns.map((column) => csvField(row[column])).join(',')}\r\n`;
  return text;
}

/** Rows of objects as CSV with a header line, columns in the given order. */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  return `${columns.join(',')}\r\n${csvLines(columns, rows)}`;
}
