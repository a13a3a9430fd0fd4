import request from 'supertest';
import { vi } from 'vitest';
import type { Express } from 'express';

/**
 * One reply to record: when, who, which model, its reported usage and cost (OpenRouter's `usage.cost`); without
 * `cost`, a model the price table does not know is recorded unpriced.
 */
export interface SeedReply {
  id: string;
  time: number;
  user: string;
  role?: string;
  model: string;
  prompt: number;
  completion: number;
  cached?: number;
  cost?: string;
}

/**
 * Runtime settings for seedThroughOutlets: the accounting filter in the main thread whatever
 * FILTER_ISOLATION says, since a faked `Date` moves the main thread's clock only (a worker keeps its
 * own). The other filters still run where FILTER_ISOLATION puts them.
 */
export const SEED_ENV = { FILTER_ISOLATION_OVERRIDES: 'accounting=main' };

/**
 * Record replies the way Open WebUI does: `POST /accounting/filter/outlet` over HTTP with the
 * reply's usage, through the real accounting filter and ledger. The server's clock is set to
 * each reply's time (only `Date` is faked; timers stay real) so replies land on chosen days; the
 * runtime must run the accounting filter in the main thread (SEED_ENV), or this throws.
 */
export async function seedThroughOutlets(app: Express, auth: { Authorization: string }, replies: SeedReply[]) {
  const listed = await request(app).get('/pipelines').set(auth).expect(200);
  const accounting = (listed.body.data as Array<{ id: string; isolation?: string }>).find(
    (filter) => filter.id === 'accounting',
  );
  if (accounting?.isolation !== 'main')
    throw new Error(
      `seedThroughOutlets needs the accounting filter in the main thread (found ${accounting?.isolation ?? 'none'}): create the runtime with SEED_ENV`,
    );
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    for (const reply of replies) {
      vi.setSystemTime(reply.time);
      await request(app)
        .post('/accounting/filter/outlet')
        .set(auth)
        .send({
          body: {
            model: reply.model,
            chat_id: `chat-${reply.id}`,
            id: reply.id,
            messages: [
              { id: `q-${reply.id}`, role: 'user', content: 'Question' },
              {
                id: reply.id,
                role: 'assistant',
                content: 'Answer',
                usage: {
                  prompt_tokens: reply.prompt,
                  completion_tokens: reply.completion,
                  total_tokens: reply.prompt + reply.completion,
                  prompt_tokens_details: { cached_tokens: reply.cached ?? 0 },
                  ...(reply.cost === undefined ? {} : { cost: reply.cost }),
                },
              },
            ],
          },
          user: { id: reply.user, email: `${reply.user}@example.com`, name: reply.user, role: reply.role ?? 'user' },
        })
        .expect(200);
    }
  } finally {
    vi.useRealTimers();
  }
}
