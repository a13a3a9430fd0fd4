import { describe, expect, it, vi } from 'vitest';
import { replayMessages, replayRequests, REPLAY_PROTOCOL } from '../../bench/lib/chat-replay.js';
import { LOCOMO_DEV_PATH, loadLocomo } from '../../bench/lib/locomo.js';
import { MessageTokenCounter } from '../../bench/lib/token-count.js';
import {
  LruTokenCache,
  planContext,
  type AlgorithmName,
  type EngineOptions,
  type PlanResult,
} from '../../src/domain/engine/index.js';
import { realDataAvailable } from '../helpers/real-data.js';

/**
 * The engine is pure: the same messages, options and previous sequence give the same plan whatever
 * ran before in the process. The process-wide memos (message ids, content hashes, each chat's
 * inverted index, term tables) are speed only. Each case plans in this module's engine after other
 * work (a longer version of the same chat, another algorithm), and compares with the plan of a
 * freshly loaded engine (`vi.resetModules()`: no memo filled) given the same input.
 */
type Engine = { planContext: typeof planContext; LruTokenCache: typeof LruTokenCache };

async function freshEngine(): Promise<Engine> {
  vi.resetModules();
  return (await import('../../src/domain/engine/index.js')) as Engine;
}

/** What a plan decides, without what legitimately varies (the run id, token-cache hits). */
function decision(messages: readonly unknown[], result: PlanResult) {
  const { runId: _runId, tokenCacheHits: _hits, ...plan } = result.plan;
  return {
    plan,
    sequence: result.sequence,
    sent: result.messages.map((message) => messages.indexOf(message)),
    stablePrefix: result.stablePrefix,
  };
}

const say = (role: 'user' | 'assistant', content: string) => ({ role, content });

/**
 * A chat whose early turn names a banjo and whose later turns name the bass, the drums and the
 * harmonica: close terms of "guitar" (soft matching takes the three closest the chat uses). Asked
 * "which guitar" part way through, only the banjo is in the chat so far.
 */
function musicChat(): { full: ReturnType<typeof say>[]; early: ReturnType<typeof say>[] } {
  const filler = (turn: number) => [
    say('user', `Day ${turn}: the weather was grey and the bus ran late again, so I read on the platform.`),
    say('assistant', `That sounds tiring. What did you read on day ${turn} while you waited?`),
  ];
  const early = [
    say('user', 'I keep an old banjo by the window and play it every evening.'),
    say('assistant', 'An evening routine like that is lovely. How long have you had it?'),
    ...Array.from({ length: 12 }, (_, turn) => filler(turn)).flat(),
  ];
  const later = [
    say('user', 'My cousin lent me her bass for the weekend.'),
    say('assistant', 'Nice, did you try it with your band?'),
    say('user', 'Yes, and our neighbour brought his drums and a harmonica.'),
    say('assistant', 'That must have been loud and fun.'),
    ...Array.from({ length: 6 }, (_, turn) => filler(20 + turn)).flat(),
  ];
  return { full: [...early, ...later], early };
}

const OPTIONS: Partial<EngineOptions> = { maxTokens: 260, weighting: 'smart', recent: 2 };

describe('planning does not depend on what ran before in the process', () => {
  it('plans an earlier point of a chat like a fresh engine after planning the whole chat (soft matching counts only the terms this request uses)', async () => {
    const { full, early } = musicChat();
    const question = say('user', 'Which guitar do I play in the evening?');
    const asked = [...early, question];
    // Other work first: the whole chat, with two algorithms, and the earlier point itself.
    const tokenCache = new LruTokenCache();
    planContext({
      messages: [...full, question],
      model: 'gpt-4o',
      options: { ...OPTIONS, algorithm: 'cache_stable' },
      tokenCache,
    });
    planContext({
      messages: [...full, question],
      model: 'gpt-4o',
      options: { ...OPTIONS, algorithm: 'greedy' },
      tokenCache,
    });
    const warm = planContext({
      messages: asked,
      model: 'gpt-4o',
      options: { ...OPTIONS, algorithm: 'recency' },
      tokenCache,
    });

    const fresh = await freshEngine();
    const cold = fresh.planContext({
      messages: asked,
      model: 'gpt-4o',
      options: { ...OPTIONS, algorithm: 'recency' },
      tokenCache: new fresh.LruTokenCache(),
    });
    expect(decision(asked, warm)).toEqual(decision(asked, cold));
    // The case is not vacuous: the banjo turn matches the question (through soft matching only).
    const banjo = cold.plan.entries.find((entry) => entry.index === 0)!;
    const filler = cold.plan.entries.find((entry) => entry.index === 4)!;
    expect(banjo.weight).toBeGreaterThan(filler.weight);
  });

  it.runIf(realDataAvailable(LOCOMO_DEV_PATH, 'plan determinism on a real conversation'))(
    'replays a real LoCoMo chat with recency after cache_stable and gets the plans of a fresh engine',
    async () => {
      const [conversation] = loadLocomo();
      const history = new MessageTokenCounter().messages(conversation!.turns);
      const budget = 2000;
      const requests = [...replayRequests(conversation!, history, budget, REPLAY_PROTOCOL, 0)];
      expect(requests.length).toBeGreaterThan(20);
      const options = { maxTokens: budget, weighting: 'smart' as const };

      /** The chat replayed with one algorithm (each request given the previous prompt): every plan's decision. */
      const replay = (engine: Engine, algorithm: AlgorithmName) => {
        const tokenCache = new engine.LruTokenCache();
        let previousSequence: string[] | undefined;
        return requests.map((request) => {
          const messages = replayMessages(conversation!, request);
          const result = engine.planContext({
            messages,
            model: 'gpt-4o',
            options: { ...options, algorithm },
            tokenCache,
            previousSequence,
          });
          previousSequence = result.sequence.filter((_, at) => result.messages[at] !== messages.at(-1));
          return decision(messages, result);
        });
      };

      const cold = replay(await freshEngine(), 'recency');
      const engine: Engine = { planContext, LruTokenCache };
      replay(engine, 'cache_stable');
      const warm = replay(engine, 'recency');
      expect(warm.length).toBe(cold.length);
      warm.forEach((plan, at) => expect(plan, `request ${at}`).toEqual(cold[at]));
    },
    120_000,
  );
});
