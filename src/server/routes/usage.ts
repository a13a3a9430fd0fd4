import { Router, type Response } from 'express';
import { z } from 'zod';
import { ValidationError } from '../../core/errors/index.js';
import type { Ledger, UsageRecord } from '../../domain/usage/types.js';
import { csvLines, toCsv } from '../../domain/usage/to-csv.js';
import { parseCursor } from '../../domain/usage/usage-cursor.js';
import type { UsageQuery } from '../../domain/usage/usage-store.js';
import { knownQuery } from '../../runtime/http/known-query.js';
import { parsedOr400 } from '../../runtime/http/parsed.js';

const instant = z.string().transform((value, context) => {
  const time = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(time)) {
    context.addIssue({ code: 'custom', message: `not an ISO date or epoch milliseconds: ${value}` });
    return z.NEVER;
  }
  return time;
});

/** Most records one JSON page holds; older ones are paged with `before`, and CSV streams them all. */
export const USAGE_PAGE_MAX = 5000;

const querySchema = z.object({
  user: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  chat: z.string().min(1).optional(),
  from: instant.optional(),
  to: instant.optional(),
  group_by: z.enum(['user', 'model', 'day']).optional(),
  format: z.enum(['json', 'csv']).default('json'),
  limit: z.coerce.number().int().min(1).max(USAGE_PAGE_MAX).default(1000),
  before: z.string().min(1).optional(),
});

const TOTAL_COLUMNS = [
  'records',
  'promptTokens',
  'completionTokens',
  'cachedTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'totalTokens',
  'cost',
  'estimated',
  'unpriced',
];
const RECORD_COLUMNS = [
  'time',
  'messageId',
  'userId',
  'userRole',
  'chatId',
  'model',
  'pricedAs',
  'promptTokens',
  'completionTokens',
  'cachedTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'totalTokens',
  'cost',
  'costSource',
  'usageSource',
  'task',
];

function parseQuery(query: unknown) {
  const parsed = parsedOr400(querySchema, query, { prefix: 'Invalid usage query' });
  if (parsed.from !== undefined && parsed.to !== undefined && parsed.from > parsed.to) {
    throw new ValidationError('Invalid usage query: from is after to');
  }
  if (parsed.before !== undefined) parseCursor(parsed.before);
  return parsed;
}

/** Stream every matching record as CSV, chunk by chunk (the store yields between chunks). */
async function streamCsv(ledger: Ledger, query: UsageQuery, response: Response): Promise<void> {
  response.type('text/csv').attachment('usage.csv');
  response.write(`${RECORD_COLUMNS.join(',')}\r\n`);
  try {
    await ledger.scan(query, async (chunk: UsageRecord[]) => {
      for (const record of chunk)
        (record as unknown as Record<string, unknown>).time = new Date(record.time).toISOString();
      if (!response.write(csvLines(RECORD_COLUMNS, chunk as unknown as Record<string, unknown>[])))
        await new Promise((resolve) => response.once('drain', resolve));
    });
  } catch (error) {
    response.destroy(error as Error); // the header is out: a broken download is the honest signal
    return;
  }
  response.end();
}

/**
 * `GET /usage?user=&model=&chat=&from=&to=&group_by=user|model|day&format=json|csv&limit=&before=`
 * over the ledger. Totals and groups are aggregated in the store (exact decimals); JSON lists the
 * newest `limit` records with a `before` cursor to older pages; CSV streams every record.
 * `from` inclusive, `to` exclusive; ISO dates or epoch ms.
 */
export function usageRouter({ ledger }: { ledger: Ledger }): Router {
  const router = Router();
  router.get('/usage', knownQuery(...Object.keys(querySchema.shape)), async (request, response) => {
    const query = parseQuery(request.query);
    const filter: UsageQuery = {
      from: query.from,
      to: query.to,
      userId: query.user,
      model: query.model,
      chatId: query.chat,
    };
    if (query.format === 'csv' && !query.group_by) return streamCsv(ledger, filter, response);
    const summary = await ledger.summarize(filter, query.group_by);
    if (query.format === 'csv') {
      response.type('text/csv').attachment(`usage-by-${query.group_by}.csv`);
      response.send(toCsv(['key', ...TOTAL_COLUMNS], (summary.groups ?? []) as unknown as Record<string, unknown>[]));
      return;
    }
    const page = query.group_by ? undefined : await ledger.latest(filter, query.limit, query.before);
    response.json({
      from: query.from === undefined ? null : new Date(query.from).toISOString(),
      to: query.to === undefined ? null : new Date(query.to).toISOString(),
      filters: { user: query.user ?? null, model: query.model ?? null, chat: query.chat ?? null },
      currency: 'USD',
      totals: summary.totals,
      ...(page
        ? { records: page.records, truncated: page.more, before: page.before ?? null }
        : { groupBy: query.group_by, groups: summary.groups }),
    });
  });
  return router;
}
