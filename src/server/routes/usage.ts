import { Router } from 'express';
import { z } from 'zod';
import { ValidationError } from '../../errors/index.js';
import type { Ledger, UsageRecord } from '../../usage/types.js';
import { groupUsage, totalsOf } from '../../usage/summarize-usage.js';
import { toCsv } from '../../usage/to-csv.js';

const instant = z.string().transform((value, context) => {
  const time = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(time)) {
    context.addIssue({ code: 'custom', message: `not an ISO date or epoch milliseconds: ${value}` });
    return z.NEVER;
  }
  return time;
});

const querySchema = z.object({
  user: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  chat: z.string().min(1).optional(),
  from: instant.optional(),
  to: instant.optional(),
  group_by: z.enum(['user', 'model', 'day']).optional(),
  format: z.enum(['json', 'csv']).default('json'),
  limit: z.coerce.number().int().min(1).max(100_000).default(1000),
});

const TOTAL_COLUMNS = ['records', 'promptTokens', 'completionTokens', 'cachedTokens', 'cacheWriteTokens', 'reasoningTokens', 'totalTokens', 'cost', 'estimated', 'unpriced'];
const RECORD_COLUMNS = ['time', 'messageId', 'userId', 'userRole', 'chatId', 'model', 'pricedAs', 'promptTokens', 'completionTokens', 'cachedTokens', 'cacheWriteTokens', 'reasoningTokens', 'totalTokens', 'cost', 'costSource', 'usageSource', 'task'];

function parseQuery(query: unknown) {
  const parsed = querySchema.safeParse(query);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    throw new ValidationError(`Invalid usage query: ${fields.map((field) => `${field.path}: ${field.message}`).join('; ')}`, fields);
  }
  if (parsed.data.from !== undefined && parsed.data.to !== undefined && parsed.data.from > parsed.data.to) {
    throw new ValidationError('Invalid usage query: from is after to');
  }
  return parsed.data;
}

/**
 * `GET /usage?user=&model=&chat=&from=&to=&group_by=user|model|day&format=json|csv` over the
 * ledger. Totals are exact decimal sums of the records' costs (they match to the cent and beyond).
 * `from` inclusive, `to` exclusive; ISO dates or epoch ms.
 */
export function usageRouter({ ledger }: { ledger: Ledger }): Router {
  const router = Router();
  router.get('/usage', async (request, response) => {
    const query = parseQuery(request.query);
    const records: UsageRecord[] = await ledger.list({ from: query.from, to: query.to, userId: query.user, model: query.model, chatId: query.chat });
    const totals = totalsOf(records);
    const groups = query.group_by ? groupUsage(records, query.group_by) : undefined;
    if (query.format === 'csv') {
      response.type('text/csv').attachment(query.group_by ? `usage-by-${query.group_by}.csv` : 'usage.csv');
      const rows = groups ?? records.map((record) => ({ ...record, time: new Date(record.time).toISOString() }));
      response.send(toCsv(groups ? ['key', ...TOTAL_COLUMNS] : RECORD_COLUMNS, rows as Record<string, unknown>[]));
      return;
    }
    response.json({
      from: query.from === undefined ? null : new Date(query.from).toISOString(),
      to: query.to === undefined ? null : new Date(query.to).toISOString(),
      filters: { user: query.user ?? null, model: query.model ?? null, chat: query.chat ?? null },
      currency: 'USD',
      totals,
      ...(groups ? { groupBy: query.group_by, groups } : { records: records.slice(-query.limit), truncated: records.length > query.limit }),
    });
  });
  return router;
}
