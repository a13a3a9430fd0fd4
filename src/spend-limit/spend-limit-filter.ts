import { z } from 'zod';
import { FilterError } from '../errors/filter-error.js';
import { defineFilter } from '../host/define-filter.js';
import { baseValves } from '../host/types.js';
import { capMessage, capReached, effectiveCaps } from '../usage/spend-caps.js';
import { OutageNotice } from '../util/outage-notice.js';
import { isRecord } from '../messages/chat-message.js';

const capPair = z.object({
  daily_usd: z.number().min(0).nullable().default(null).describe('Daily cap in USD (null = inherit, 0 = none)'),
  monthly_usd: z.number().min(0).nullable().default(null).describe('Monthly cap in USD (null = inherit, 0 = none)'),
});

/** Options of the spend-limit filter (tests inject the clock). */
export interface SpendLimitOptions {
  now?: () => number;
}

/**
 * Spend limits: daily and monthly USD caps per user (defaults), per role and per user
 * (overrides by id or email), read from the ledger the accounting filter writes. When a cap
 * is reached the inlet stops the request with HTTP 429 and a message the user understands.
 * Admins are exempt by default; Open WebUI background tasks (titles, tags) are never blocked.
 */
export function createSpendLimitFilter(options: SpendLimitOptions = {}) {
  const now = options.now ?? Date.now;
  const outage = new OutageNotice('the ledger (spend limits)');
  return defineFilter({
    name: 'Spend Limits',
    valves: baseValves.extend({
      priority: z
        .number()
        .int()
        .default(-50)
        .describe('Filters run in ascending priority; early, so a blocked request costs nothing.'),
      daily_limit_usd: z
        .number()
        .min(0)
        .default(0)
        .describe('Daily cap per user in USD (0 = none); resets at 00:00 UTC'),
      monthly_limit_usd: z
        .number()
        .min(0)
        .default(0)
        .describe('Monthly cap per user in USD (0 = none); resets on the 1st, 00:00 UTC'),
      role_limits: z
        .record(z.string(), capPair)
        .default({})
        .describe('Caps per Open WebUI role, e.g. {"user": {"monthly_usd": 20}}'),
      user_limits: z
        .record(z.string(), capPair)
        .default({})
        .describe('Caps per user id or email, overriding role and default, e.g. {"ann@example.com": {"daily_usd": 5}}'),
      exempt_roles: z.array(z.string()).default(['admin']).describe('Roles never limited'),
    }),

    async inlet({ body, user, valves, services, logger }) {
      const task = isRecord(body.metadata) ? body.metadata.task : undefined;
      if (task || !user?.id) return body; // Tasks count (accounting records them) but are never blocked.
      if (user.role && valves.exempt_roles.includes(user.role)) return body;
      const at = now();
      const caps = effectiveCaps(valves, user, at);
      if (caps.length === 0) return body;
      if (!services.ledger) {
        logger.warn('spend-limit: no ledger service; caps cannot be enforced');
        return body;
      }
      for (const cap of caps) {
        let spent: string;
        try {
          // One counter read per cap (the user's spend of this UTC day or month), whatever the ledger's size.
          spent = await services.ledger.spent(user.id, cap.period.from, cap.period.to);
          outage.recovered(logger);
        } catch (error) {
          outage.failed(logger, error, 'spend-limit: ledger unavailable; letting requests through');
          return body;
        }
        if (capReached(cap, spent)) {
          logger.info({ user: user.id, period: cap.period.kind, spent }, 'spend-limit: cap reached');
          throw new FilterError(429, capMessage(cap), { code: 'ERR_SPEND_LIMIT' });
        }
      }
      return body;
    },
  });
}
