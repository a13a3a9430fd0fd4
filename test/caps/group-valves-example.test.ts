import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectiveCaps, type SpendCapValves } from '../../src/domain/usage/spend-caps.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { expectJsonError } from '../server/helpers/http.js';

/**
 * docs/accounting.md, "Group budgets and budgets by model": the worked example's valves, typed into Open WebUI's valve
 * form as JSON text (POST /spend-limit/valves/update as Open WebUI sends it), and the caps the page says each user gets.
 */
const EXAMPLE = {
  daily_limit_usd: 1,
  role_limits: '{"user": {"monthly_usd": 10}}',
  user_limits: '{"ann@example.com": {"daily_usd": 5}}',
  group_limits:
    '{"Research": {"daily_usd": 20, "monthly_usd": 200, "member_daily_usd": 2, "member_monthly_usd": 20}, "Interns": {"member_daily_usd": 0.5, "member_monthly_usd": 5}, "Leads": {"member_daily_usd": 10}}',
  model_limits:
    '{"openai/gpt-5*": {"monthly_usd": 100}, "anthropic/claude-opus*": {"daily_usd": 5, "group": "Research"}}',
  group_members: '{"Interns": ["dee@example.com"]}',
};

const NOW = Date.UTC(2026, 10, 5, 12);
const research = { id: '6f0c2c1e-research', name: 'Research' };
const interns = { id: '9a41d7b2-interns', name: 'Interns' };
const leads = { id: 'c3e8f5a0-leads', name: 'Leads' };

/** Each cap as "<scope or own>:<period>=<USD>", in effectiveCaps's order. */
function capsOf(valves: SpendCapValves, user: Record<string, unknown>, model?: string): string[] {
  return effectiveCaps(valves, { role: 'user', ...user }, NOW, model).map(
    (cap) => `${cap.scope ?? 'own'}:${cap.period.kind}=${Number(cap.limit / 10n ** 12n) / 1e6}`,
  );
}

describe("the group valves of docs/accounting.md's worked example", () => {
  let runtime: TestRuntime;
  let valves: SpendCapValves;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['spend-limit.ts'] });
    await request(runtime.app).post('/spend-limit/valves/update').set(runtime.auth).send(EXAMPLE).expect(200);
    valves = (await request(runtime.app).get('/spend-limit/valves').set(runtime.auth).expect(200)).body;
  });
  afterAll(async () => runtime.dispose());

  it('ann (Research; her own daily $5): her daily cap, Research’s member month, the group’s shared caps', () => {
    expect(capsOf(valves, { id: 'u-ann', email: 'ann@example.com', groups: [research] })).toEqual([
      'own:monthly=20',
      'own:daily=5',
      'g:Research:monthly=200',
      'g:Research:daily=20',
    ]);
    // On a matching model, the pattern's caps too: everyone's GPT-5 month, Research's Opus day.
    expect(
      capsOf(valves, { id: 'u-ann', email: 'ann@example.com', groups: [research] }, 'openai/gpt-5-mini'),
    ).toContain('m:openai/gpt-5*:monthly=100');
    expect(
      capsOf(valves, { id: 'u-ann', email: 'ann@example.com', groups: [research] }, 'anthropic/claude-opus-4.5'),
    ).toContain('g:Research|m:anthropic/claude-opus*:daily=5');
  });

  it('bob (Research and Interns): the lowest member cap of his groups, per period', () => {
    expect(capsOf(valves, { id: 'u-bob', groups: [research, interns] })).toEqual([
      'own:monthly=5',
      'own:daily=0.5',
      'g:Research:monthly=200',
      'g:Research:daily=20',
    ]);
  });

  it('cy (Leads): a member cap wins over the default even when higher; the role fills the month', () => {
    expect(capsOf(valves, { id: 'u-cy', groups: [leads] })).toEqual(['own:monthly=10', 'own:daily=10']);
  });

  it('dee carries no groups: group_members puts her in Interns; eve is in none: role and default', () => {
    expect(capsOf(valves, { id: 'u-dee', email: 'dee@example.com' })).toEqual(['own:monthly=5', 'own:daily=0.5']);
    expect(capsOf(valves, { id: 'u-eve', email: 'eve@example.com', groups: 'not a list' })).toEqual([
      'own:monthly=10',
      'own:daily=1',
    ]);
    // Malformed entries are skipped; a bare string is a group id (Research's id matches no key: the keys name it).
    expect(capsOf(valves, { id: 'u-fay', groups: [null, { name: 'Research' }, research.id, 'Interns'] })).toEqual([
      'own:monthly=5',
      'own:daily=0.5',
    ]);
    // Anthropic Opus is capped for Research only.
    expect(capsOf(valves, { id: 'u-eve' }, 'anthropic/claude-opus-4.5')).toEqual(['own:monthly=10', 'own:daily=1']);
  });

  it('group_limits and model_limits are strict: a misspelt key is a 400 naming it, nothing saved', async () => {
    const typo = await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ group_limits: '{"Research": {"member_daily": 2}}' });
    expectJsonError(typo, 400, /group_limits\.Research.*"member_daily"/);
    const model = await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ model_limits: { 'openai/gpt-5*': { monthly: 100 } } });
    expectJsonError(model, 400, /model_limits\.openai\/gpt-5\*.*"monthly"/);
    expect((await request(runtime.app).get('/spend-limit/valves').set(runtime.auth).expect(200)).body).toEqual(valves);
  });
});
