import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type express from 'express';
import request from 'supertest';
import { usageRouter } from '../../src/server/routes/usage.js';
import { routeApp } from '../helpers/route-app.js';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { usageRecord } from './helpers/usage-record.js';

let app: express.Express;
let cleanup: () => Promise<void>;
const day = (date: number, hour = 12) => Date.UTC(2026, 10, date, hour);
// Costs chosen so a float sum drifts: 0.1 + 0.2 + 0.3 + 0.000001 + 0.0098454.
const costs = ['0.1', '0.2', '0.3', '0.000001', '0.0098454'];

beforeAll(async () => {
  const temp = await tempSqliteStore();
  cleanup = temp.dispose;
  const ledger = createLedger(temp.store);
  await ledger.record(
    usageRecord({ messageId: 'r0', userId: 'alice', model: 'gpt-4o', chatId: 'c1', cost: costs[0]!, time: day(1) }),
  );
  await ledger.record(
    usageRecord({ messageId: 'r1', userId: 'alice', model: 'gpt-4o', chatId: 'c1', cost: costs[1]!, time: day(1, 13) }),
  );
  await ledger.record(
    usageRecord({
      messageId: 'r2',
      userId: 'bob',
      model: 'claude',
      pricedAs: 'anthropic/claude-3.5-sonnet',
      chatId: 'c2',
      cost: costs[2]!,
      time: day(2),
    }),
  );
  await ledger.record(
    usageRecord({
      messageId: 'r3',
      userId: 'bob',
      model: 'gpt-4o',
      chatId: 'c3',
      cost: costs[3]!,
      time: day(3),
      costSource: 'estimated',
      usageSource: 'estimated',
    }),
  );
  await ledger.record(
    usageRecord({
      messageId: 'r4',
      userId: 'alice',
      model: 'claude',
      pricedAs: 'anthropic/claude-3.5-sonnet',
      chatId: 'c4',
      cost: costs[4]!,
      time: day(3, 1),
    }),
  );
  app = routeApp(['/v1', usageRouter({ ledger })], usageRouter({ ledger }));
});
afterAll(async () => cleanup());

describe('GET /usage', () => {
  it('totals are the exact decimal sum of the records', async () => {
    const response = await request(app).get('/usage').expect(200);
    expect(response.body.totals).toMatchObject({ records: 5, cost: '0.6098464', promptTokens: 500, estimated: 1 });
    expect(response.body.records.map((record: { messageId: string }) => record.messageId)).toEqual([
      'r0',
      'r1',
      'r2',
      'r4',
      'r3',
    ]);
  });

  it('filters by user, model, chat and time (ISO or epoch ms; from inclusive, to exclusive)', async () => {
    expect((await request(app).get('/usage?user=alice').expect(200)).body.totals.cost).toBe('0.3098454');
    expect((await request(app).get('/usage?model=anthropic/claude-3.5-sonnet').expect(200)).body.totals.cost).toBe(
      '0.3098454',
    );
    expect((await request(app).get('/usage?chat=c1').expect(200)).body.totals.records).toBe(2);
    expect(
      (
        await request(app)
          .get(`/usage?from=${day(1, 13)}&to=2026-11-03T01:00:00Z`)
          .expect(200)
      ).body.totals.cost,
    ).toBe('0.5');
    expect(
      (
        await request(app)
          .get(`/usage?from=${day(1, 13)}&to=2026-11-03T01:00:00.001Z`)
          .expect(200)
      ).body.totals.cost,
    ).toBe('0.5098454');
  });

  it('groups by user, model and day', async () => {
    const byUser = (await request(app).get('/v1/usage?group_by=user').expect(200)).body;
    expect(byUser.groups.map((group: { key: string; cost: string }) => [group.key, group.cost])).toEqual([
      ['alice', '0.3098454'],
      ['bob', '0.300001'],
    ]);
    const byModel = (await request(app).get('/usage?group_by=model').expect(200)).body;
    expect(byModel.groups.map((group: { key: string }) => group.key)).toEqual([
      'anthropic/claude-3.5-sonnet',
      'openai/gpt-4o',
    ]);
    const byDay = (await request(app).get('/usage?group_by=day').expect(200)).body;
    expect(byDay.groups.map((group: { key: string; records: number }) => [group.key, group.records])).toEqual([
      ['2026-11-01', 2],
      ['2026-11-02', 1],
      ['2026-11-03', 2],
    ]);
  });

  it('CSV for records and groups', async () => {
    const grouped = await request(app).get('/usage?group_by=user&format=csv').expect(200);
    expect(grouped.headers['content-type']).toMatch(/text\/csv/);
    expect(grouped.text.split('\r\n')[0]).toBe(
      'key,records,promptTokens,completionTokens,cachedTokens,cacheWriteTokens,reasoningTokens,totalTokens,cost,estimated,unpriced',
    );
    expect(grouped.text.split('\r\n')[1]).toBe('alice,3,300,30,0,0,0,330,0.3098454,0,0');
    const flat = await request(app).get('/usage?format=csv&user=bob').expect(200);
    const lines = flat.text.trim().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('2026-11-02T12:00:00.000Z,r2,bob');
  });

  it('bad queries are a 400 with detail', async () => {
    expect((await request(app).get('/usage?from=yesterday').expect(400)).body.detail).toMatch(/from: not an ISO date/);
    expect((await request(app).get('/usage?group_by=week').expect(400)).body.detail).toMatch(/group_by/);
    expect((await request(app).get('/usage?from=2026-11-05&to=2026-11-01').expect(400)).body.detail).toMatch(
      /from is after to/,
    );
  });
});
