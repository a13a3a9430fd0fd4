import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { serverCaller } from '../../helpers/server-calls.js';
import { deleteRedisPrefix } from '../../usage/helpers/ledger-fixtures.js';

/**
 * The near-cap burst against real server processes, for a model as Open WebUI's Pipelines connection sends it: a
 * user who spent $0.07 of a $0.10 monthly cap sends `size` requests at once, spread over the servers; every admitted
 * one gets its reply (1,000 prompt + 500 completion tokens) through another server's accounting outlet, named as
 * Open WebUI's outlet names it (`outletModel`, no metadata).
 */

export const KEY = 'caps-burst-key';
export const CAP_USD = 0.1;
/** Spent before the burst: 28,000 prompt tokens of openai/gpt-4o ($2.50 / M in the bundled table). */
export const SEEDED_USD = 0.07;
export const PROMPT = 'The quarterly report lists revenue by region and the notes explain each change. '.repeat(65);

/** How the burst's requests name their model. */
export interface BurstModel {
  /** `body.model` at the inlet. */
  model: string;
  /** What the inlet's `metadata` adds (a workspace model's `model.info.base_model_id`). */
  metadata?: Record<string, unknown>;
  /** `body.model` at the outlet (Open WebUI sends the chat's model id). */
  outletModel: string;
  /** The provider's reported cost of each reply (`usage.cost`), when it reports one. */
  reportedCost?: number;
}

const call = serverCaller(KEY);
/** `POST route` on `server` with `body`, the API key: the status and the JSON answer. */
export const post = (server: ServerProcess, route: string, body: unknown) => call(server, 'POST', route, body);

/**
 * One request through the Pipelines server's filters, as Open WebUI calls them: each filter's inlet in ascending
 * priority (spend-limit -50, accounting 100) with the body the previous one returned; a refusal stops the chain.
 */
export async function inletChain(server: ServerProcess, envelope: ReturnType<typeof inlet>) {
  const limited = await post(server, '/spend-limit/filter/inlet', envelope);
  if (limited.status !== 200) return limited;
  return post(server, '/accounting/filter/inlet', { user: envelope.user, body: limited.body });
}

/** The burst's user `id`, in `role` (the spend-limit valves' `role_limits` key). */
export const userOf = (id: string, role = 'user') => ({ id, email: `${id}@example.com`, name: id, role });

/** An outlet as Open WebUI 0.10+ sends it: `{model, messages, chat_id, session_id, id}`, no metadata. */
export function outlet(
  userId: string,
  id: string,
  model: string,
  usage: { prompt: number; completion: number; cost?: number },
  role?: string,
) {
  return {
    user: userOf(userId, role),
    body: {
      model,
      chat_id: `chat-${userId}`,
      session_id: 's1',
      id,
      messages: [
        { id: `${id}-q`, role: 'user', content: PROMPT },
        {
          id,
          role: 'assistant',
          content: `reply ${id}`,
          usage: {
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            total_tokens: usage.prompt + usage.completion,
            ...(usage.cost === undefined ? {} : { cost: usage.cost }),
          },
        },
      ],
    },
  };
}

/** An inlet as Open WebUI's Pipelines connection sends it. */
export function inlet(userId: string, id: string, spec: Pick<BurstModel, 'model' | 'metadata'>, role?: string) {
  return {
    user: userOf(userId, role),
    body: {
      model: spec.model,
      max_tokens: 500,
      messages: [{ role: 'user', content: PROMPT }],
      metadata: { chat_id: `chat-${userId}`, message_id: id, ...spec.metadata },
    },
  };
}

interface UsageAnswer {
  totals: { cost: string; unpriced: number };
  records: Array<{ messageId: string; cost: string; costSource: string; pricedAs?: string }>;
}

export async function usageOf(server: ServerProcess, userId: string): Promise<UsageAnswer> {
  const response = await fetch(`${server.url}/usage?user=${userId}&limit=200`, {
    headers: { Authorization: `Bearer ${KEY}` },
  });
  return (await response.json()) as UsageAnswer;
}

export interface BurstResult {
  statuses: number[];
  /** The burst's inlet answers, in the order of `statuses`. */
  answers: Array<{ status: number; body: Record<string, unknown> }>;
  admitted: number;
  /** The month's recorded spend after every admitted reply, USD. */
  spent: number;
  /** The burst's reply records (the seed left out). */
  replies: UsageAnswer['records'];
  /** The status of one more request after the burst's replies were recorded. */
  after: number;
}

export async function nearCapBurst(
  servers: ServerProcess[],
  userId: string,
  size: number,
  spec: BurstModel,
): Promise<BurstResult> {
  const seeded = await post(
    servers[0]!,
    '/accounting/filter/outlet',
    outlet(userId, `${userId}-seed`, 'openai/gpt-4o', { prompt: 28_000, completion: 0 }),
  );
  if (seeded.status !== 200) throw new Error(`seed outlet answered ${seeded.status}`);
  const ids = Array.from({ length: size }, (_, index) => `${userId}-${index}`);
  const answers = await Promise.all(
    ids.map((id, index) => inletChain(servers[index % servers.length]!, inlet(userId, id, spec))),
  );
  const admitted = ids.filter((_, index) => answers[index]!.status === 200);
  await Promise.all(
    admitted.map((id, index) =>
      post(
        servers[(index + 1) % servers.length]!,
        '/accounting/filter/outlet',
        outlet(userId, id, spec.outletModel, { prompt: 1000, completion: 500, cost: spec.reportedCost }),
      ),
    ),
  );
  const usage = await usageOf(servers[0]!, userId);
  const after = await inletChain(servers.at(-1)!, inlet(userId, `${userId}-after`, spec));
  return {
    statuses: answers.map((answer) => answer.status),
    answers,
    admitted: admitted.length,
    spent: Number(usage.totals.cost),
    replies: usage.records.filter((record) => record.messageId !== `${userId}-seed`),
    after: after.status,
  };
}

/**
 * The servers of a near-cap burst: one SQLite server, and (with `redisUrl`) two replicas on one Redis under a prefix
 * of their own; the shipped spend-limit and accounting filters in the server's thread as deployed, the spend-limit
 * valves `spendValves` (default: a $0.10 monthly cap for every user). `stop` stops them and removes their files and Redis keys.
 */
export async function startCapServers(
  label: string,
  redisUrl: string | undefined,
  spendValves: Record<string, unknown> = { monthly_limit_usd: CAP_USD },
): Promise<{ servers: ServerProcess[]; stop: () => Promise<void> }> {
  const root = mkdtempSync(path.join(os.tmpdir(), `eunoe-${label}-`));
  const prefix = `eunoe-test-${label}-${randomBytes(4).toString('hex')}:`;
  const filters = path.join(root, 'filters');
  mkdirSync(filters);
  const valves = path.join(root, 'valves');
  mkdirSync(valves);
  writeFileSync(path.join(valves, 'spend-limit.json'), JSON.stringify(spendValves));
  const env = (name: string, extra: Record<string, string> = {}) => ({
    PIPELINES_API_KEY: KEY,
    // The shipped filters, in the server's thread as deployed (filter workers are not the subject here).
    SHIPPED_FILTERS: 'spend-limit,accounting',
    FILTERS_DIR: filters,
    VALVES_DIR: valves,
    DATA_DIR: path.join(root, name),
    // The subject is the reservations' atomicity: a store answer slower than the default 500 ms (a loaded machine)
    // would let requests through as an outage does (docs/reliability.md), which is another test's subject.
    STATE_TIMEOUT_MS: '10000',
    ...extra,
  });
  const starting = [startServerProcess(env('sqlite'))];
  if (redisUrl)
    starting.push(
      startServerProcess(env('a', { REDIS_URL: redisUrl, REDIS_PREFIX: prefix })),
      startServerProcess(env('b', { REDIS_URL: redisUrl, REDIS_PREFIX: prefix })),
    );
  const servers = await Promise.all(starting);
  return {
    servers,
    stop: async () => {
      await Promise.all(servers.map((server) => server.stop()));
      if (redisUrl) await deleteRedisPrefix(redisUrl, prefix);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
