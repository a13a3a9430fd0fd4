import type { UsageQuery } from '../../domain/usage/usage-store.js';

/** The WHERE clause (without the cursor) of a usage query over the `ledger` table, with its parameters. */
export function usageWhere(query: UsageQuery): { sql: string; params: Array<string | number> } {
  const conditions: string[] = [];
  const params: Array<string | number> = [];
  if (query.userId !== undefined) {
    conditions.push('user_id = ?');
    params.push(query.userId);
  }
  if (query.chatId !== undefined) {
    conditions.push('chat_id = ?');
    params.push(query.chatId);
  }
  if (query.model !== undefined) {
    conditions.push('(model = ? OR priced_as = ?)');
    params.push(query.model, query.model);
  }
  if (query.from !== undefined) {
    conditions.push('time >= ?');
    params.push(query.from);
  }
  if (query.to !== undefined) {
    conditions.push('time < ?');
    params.push(query.to);
  }
  return { sql: conditions.length > 0 ? conditions.join(' AND ') : '1', params };
}
