import { beforeAll, describe, expect, inject, it } from 'vitest';
import { capServersForTests } from './helpers/cap-servers-for-tests.js';
import {
  CAP_USD,
  nearCapBurst,
  outlet,
  post,
  SEEDED_USD,
  type BurstModel,
  type BurstResult,
} from './helpers/near-cap-burst.js';

/**
 * Workspace models and models without a price inside the spend caps, over real HTTP against real server processes
 * (the shipped spend-limit and accounting filters): one SQLite server, and two replicas on one Redis. Each reply
 * costs $0.0075 (1,000 prompt + 500 completion tokens of openai/gpt-4o: $2.50 / $10 per M in the bundled table).
 */

const redisUrl = inject('redisUrl');
const REPLY_USD = 0.0075;

/**
 * A workspace model built in Open WebUI on openai/gpt-4o: its inlet carries `metadata.model.info.base_model_id`
 * (Open WebUI's process_chat_payload puts the model record in the request metadata), its outlet only
 * `{model: "acme-assistant", …}` (Open WebUI's outlet_filter_handler, backend/open_webui/utils/middleware.py, v0.11.3).
 */
const workspace: BurstModel = {
  model: 'acme-assistant',
  metadata: { model: { id: 'acme-assistant', info: { base_model_id: 'openai/gpt-4o', meta: {} } } },
  outletModel: 'acme-assistant',
};

/** A model the price table does not know, whose provider reports each reply's cost (`usage.cost`, OpenRouter's shape). */
const unpriced: BurstModel = { model: 'newco/nova-1', outletModel: 'newco/nova-1', reportedCost: REPLY_USD };

function expectInsideTheCap(result: BurstResult, size: number, pricedAs?: string) {
  expect(result.statuses).toHaveLength(size);
  // $0.03 of room, about $0.0071 held per request (918 prompt tokens + max_tokens 500): 4 fit, the rest are refused.
  expect(result.admitted).toBe(4);
  expect(result.statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
  // Every admitted reply is recorded at its cost, as its base model or as reported.
  expect(result.replies).toHaveLength(result.admitted);
  for (const reply of result.replies) {
    expect(Number(reply.cost)).toBeCloseTo(REPLY_USD, 10);
    if (pricedAs) expect(reply).toMatchObject({ costSource: 'computed', pricedAs });
    else expect(reply.costSource).toBe('reported');
  }
  expect(result.spent).toBeCloseTo(SEEDED_USD + result.admitted * REPLY_USD, 10);
  // Overshoot at most one reply's cost: the month ends within the cap + $0.0075.
  expect(result.spent).toBeLessThanOrEqual(CAP_USD + REPLY_USD + 1e-12);
  // The cap is reached in recorded spend: the next request is refused.
  expect(result.after).toBe(429);
}

describe('workspace and unpriced models near a cap, over HTTP against real servers', () => {
  const servers = capServersForTests('caps', redisUrl);

  beforeAll(async () => {
    // The unpriced model has been seen once: another user's reply of 1,500 tokens, reported at $0.0075.
    for (const server of [servers[0]!, ...(redisUrl ? [servers[1]!] : [])]) {
      const seen = await post(
        server,
        '/accounting/filter/outlet',
        outlet('teacher', 'teacher-nova', unpriced.outletModel, { prompt: 1000, completion: 500, cost: REPLY_USD }),
      );
      expect(seen.status).toBe(200);
    }
  });

  for (const size of [32, 64]) {
    it(`SQLite: a workspace model, ${size} at once: 4 pass, its replies are priced as its base model`, async () => {
      expectInsideTheCap(
        await nearCapBurst([servers[0]!], `ws-sqlite-${size}`, size, workspace),
        size,
        'openai/gpt-4o',
      );
    });

    it(`SQLite: an unpriced model with reported cost, ${size} at once: 4 pass, held at its learned cost`, async () => {
      expectInsideTheCap(await nearCapBurst([servers[0]!], `nova-sqlite-${size}`, size, unpriced), size);
    });

    it.runIf(redisUrl)(`two replicas on one Redis: a workspace model, ${size} at once`, async () => {
      expectInsideTheCap(
        await nearCapBurst(servers.slice(1), `ws-redis-${size}`, size, workspace),
        size,
        'openai/gpt-4o',
      );
    });

    it.runIf(redisUrl)(`two replicas on one Redis: an unpriced model with reported cost, ${size} at once`, async () => {
      expectInsideTheCap(await nearCapBurst(servers.slice(1), `nova-redis-${size}`, size, unpriced), size);
    });
  }
});
