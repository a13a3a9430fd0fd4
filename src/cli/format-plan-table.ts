import type { PlanResult } from '../domain/engine/index.js';
import { contentText } from '../domain/engine/conversation/message-text.js';
import { isRecord, looseMessage } from '../core/messages/chat-message.js';

/** One-line preview of a message: its text, or `[tool calls: …]` / `[image]`. */
function preview(message: unknown, width: number): string {
  const typed = looseMessage(message) ?? {};
  let text = contentText(typed.content);
  if (!text && Array.isArray(typed.tool_calls)) {
    const names = typed.tool_calls.map((call) =>
      isRecord(call) && isRecord(call.function) ? call.function.name : undefined,
    );
    text = `[tool calls: ${names.map((name) => name ?? '?').join(', ')}]`;
  }
  if (Array.isArray(typed.content) && typed.content.some((part) => isRecord(part) && part.type === 'image_url'))
    text = `[image] ${text}`;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

/** A readable table of every message (disposition, weight, tokens, reason, preview) and the plan's totals. */
export function formatPlanTable(result: PlanResult, input: readonly unknown[]): string {
  const { plan } = result;
  const header = ['#', 'role', 'disposition', 'weight', 'tokens', 'reason', 'preview'];
  const rows = plan.entries.map((entry) => [
    String(entry.index),
    entry.role,
    entry.disposition,
    entry.weight.toFixed(3),
    String(entry.tokens),
    entry.reason.length > 30 ? `${entry.reason.slice(0, 29)}…` : entry.reason,
    preview(input[entry.index], 60),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 6 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  const budget = plan.budget.limitTokens > 0 ? `${plan.budget.limitTokens}` : 'none';
  const lines = [
    line(header),
    line(widths.map((width, column) => '-'.repeat(column === 6 ? 7 : width))),
    ...rows.map(line),
    '',
    `run ${plan.runId}  algorithm ${plan.algorithm}  weighting ${plan.weighting}  encoding ${plan.encoding}`,
    `tokens ${plan.tokensBefore} -> ${plan.tokensAfter} (limit ${budget}${plan.budget.summaryReserveTokens ? `, summary reserve ${plan.budget.summaryReserveTokens}` : ''})${plan.overBudget ? '  OVER BUDGET' : ''}`,
    `messages ${plan.entries.length} -> ${result.messages.length}`,
    ...plan.notes.map((note) => `note: ${note}`),
  ];
  return `${lines.join('\n')}\n`;
}
