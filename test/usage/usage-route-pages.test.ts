import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type express from 'express';
import request from 'supertest';
import { usageRouter } from '../../src/server/routes/usage.js';
import { routeApp } from '../helpers/route-app.js';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import { SUMMARY_CHUNK, USAGE_CHUNK } from '../../src/domain/usage/usage-store.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { usageRecord } from './helpers/usage-record.js';

let app: express.Express;
let cleanup: () => Promise<void>;
const COUNT = Math.max(SUMMARY_CHUNK, USAGE_CHUNK * 4) + 600;

beforeAll(async () => {
  const temp = await tempSqliteStore();
  cleanup = temp.dispose;
  const ledger = createLedger(temp.store);
  for (let index = 0; index < COUNT; index++) {
    await ledger.record(
      usageRecord({
        messageId: `m${String(index).padStart(5, '0')}`,
        time: Date.UTC(2026, 10, 1) + index * 1000,
        cost: '0.001',
      }),
    );
  }
  app = routeApp(usageRouter({ ledger }));
});
afterAll(async () => cleanup());

describe('GET /usage on a large ledger', () => {
  it('JSON lists the newest page with a cursor to the older ones; totals cover everything', async () => {
    const first = (await request(app).get('/usage?limit=1000').expect(200)).body;
    expect(first.totals).toMatchObject({ records: COUNT, cost: String(COUNT / 1000) });
    expect(first.records).toHaveLength(1000);
    expect(first.records.at(-1).messageId).toBe(`m${String(COUNT - 1).padStart(5, '0')}`);
    expect(first.truncated).toBe(true);
    const ids: string[] = first.records.map((record: { messageId: string }) => record.messageId);
    let before: string | null = first.before;
    while (before) {
      const page = (
        await request(app)
          .get(`/usage?limit=1000&before=${encodeURIComponent(before)}`)
          .expect(200)
      ).body;
      ids.unshift(...page.records.map((record: { messageId: string }) => record.messageId));
      before = page.before;
    }
    expect(ids).toEqual(Array.from({ length: COUNT }, (_, index) => `m${String(index).padStart(5, '0')}`));
  });

  it('CSV streams every record, oldest first', async () => {
    const response = await request(app).get('/usage?format=csv').expect(200);
    const lines = response.text.trim().split('\r\n');
    expect(lines).toHaveLength(COUNT + 1);
    expect(lines[1]).toContain(',m00000,');
    expect(lines.at(-1)).toContain(`,m${String(COUNT - 1).padStart(5, '0')},`);
  });

  it('a bad cursor or an oversized page is a 400 with detail', async () => {
    expect((await request(app).get('/usage?before=abc').expect(400)).body.detail).toMatch(/before: not a cursor/);
    expect((await request(app).get('/usage?limit=100000').expect(400)).body.detail).toMatch(/limit/);
  });
});
