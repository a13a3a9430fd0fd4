/**
 * Recall and prompt-cache economics together, on real conversations replayed as chats
 * (LoCoMo dev split, ../shared/data/locomo-dev.json, read at bench time).
 *
 * Protocol (bench/lib/chat-replay.ts): one chat per conversation, its history growing turn by
 * turn; from twice the budget on, every 6 turns the user asks a labelled question (fixed shuffled
 * order, all its evidence at least 20 turns back) as a side branch: the question is not kept in the
 * history. Each request goes through the context filter's own path (valve defaults, max_tokens =
 * the budget, the algorithm named, gpt-4o, real o200k tokens) with the chat's previous prompt as
 * the engine's `previousSequence`. Per question: the share of its evidence turns sent byte-for-byte.
 * Between consecutive requests of a chat: the tokens of the prompt before the question that repeat
 * the previous request's sent messages from the start, message by message, ÷ those prompt tokens
 * (prefix reuse). Prompt cost relative to no reuse: (new + r × repeated) ÷ prompt tokens at cache-read
 * prices r = 0.1 (Anthropic), 0.25 (Gemini), 0.5 (gpt-4o), and with Anthropic's 1.25× cache writes
 * on the new part at r = 0.1 (the question counts as new; priming as prompt). CACHE_ALGOS=a,b runs only
 * the algorithms named, CACHE_BUDGETS=2000,4000 only the budgets named.
 */
import contextFilter from '../filters/context.js';
import { LruTokenCache, planContext, type AlgorithmName } from '../src/domain/engine/index.js';
import type { ChatMessage } from './lib/chat-message.js';
import { replayMessages, replayRequests, REPLAY_PROTOCOL } from './lib/chat-replay.js';
import { keptIndexes } from './lib/engine-selection.js';
import { loadLocomo } from './lib/locomo.js';
import { mean } from './lib/metrics.js';
import { commonPrefixLength, prefixTokens } from './lib/prefix-reuse.js';
import { markdownTable, percent } from './lib/table.js';
import { MessageTokenCounter } from './lib/token-count.js';
import { valvesOptions } from './lib/valves-options.js';

const BUDGETS = process.env.CACHE_BUDGETS?.split(',').map(Number) ?? [2000, 4000, 8000];
const MODEL = 'gpt-4o';
const ALGORITHMS: AlgorithmName[] = (process.env.CACHE_ALGOS?.split(',') as AlgorithmName[] | undefined) ?? [
  'recency',
  'greedy',
  'dependency',
  'prefix_cache',
  'cache_stable',
];
const DEFAULT: AlgorithmName = contextFilter.valves!.parse({}).algorithm;
/** Goal per budget: recall within 2 points of `recency`, prefix reuse at least this. */
const GOALS: Record<number, number> = { 2000: 0.5, 4000: 0.65 };
/** The notes of a plan that cut the history carried from the previous prompt. */
const CUT_NOTE = /^(prefix_cache: over budget, trimmed|cache_stable: the core restarted)/;
const READ_PRICES = [0.1, 0.25, 0.5];
const WRITE_PRICE = 1.25;

interface Totals {
  recalls: number[];
  requests: number;
  /** Prompt tokens before the question, summed over requests after a chat's first. */
  before: number;
  /** Of those, tokens repeating the previous request's prefix. */
  repeated: number;
  /** Whole prompt tokens (question and priming included), requests after a chat's first. */
  prompt: number;
  over: number;
  /** Requests after a chat's first whose plan cut the carried history (prefix_cache's trim, cache_stable's cut). */
  cuts: number;
}

const started = performance.now();
const counter = new MessageTokenCounter();
const tokenCache = new LruTokenCache(200_000);
const conversations = loadLocomo();
const totals = new Map<string, Totals>();

for (const budget of BUDGETS) {
  for (const algorithm of ALGORITHMS) {
    const total: Totals = { recalls: [], requests: 0, before: 0, repeated: 0, prompt: 0, over: 0, cuts: 0 };
    totals.set(`${budget}|${algorithm}`, total);
    const options = valvesOptions(budget, { algorithm });
    conversations.forEach((conversation, index) => {
      const history = counter.messages(conversation.turns);
      let previousSequence: string[] | undefined;
      let previousSent: ChatMessage[] = [];
      for (const request of replayRequests(conversation, history, budget, REPLAY_PROTOCOL, index)) {
        const messages = replayMessages(conversation, request);
        const result = planContext({ messages, model: MODEL, options, tokenCache, previousSequence });
        const kept = new Set(keptIndexes(result.plan));
        total.recalls.push(
          request.question.evidence.filter((turn) => kept.has(turn)).length / request.question.evidence.length,
        );
        if (result.plan.tokensAfter > budget) total.over += 1;
        const sent = (result.messages as ChatMessage[]).filter((message) => message !== messages.at(-1));
        const tokens = counter.messages(sent);
        if (previousSequence) {
          total.requests += 1;
          total.before += tokens.reduce((sum, value) => sum + value, 0);
          total.repeated += prefixTokens(tokens, commonPrefixLength(previousSent, sent));
          total.prompt += counter.prompt(result.messages as ChatMessage[]);
          if (result.plan.notes.some((note) => CUT_NOTE.test(note))) total.cuts += 1;
        }
        previousSequence = result.sequence.filter((_, at) => result.messages[at] !== messages.at(-1));
        previousSent = sent;
      }
    });
  }
}

const label = (budget: number): string => `${budget / 1000}k`;
/** Prompt cost ÷ cost without reuse: new tokens at 1 (or `write`), repeated tokens at `read`. */
const cost = (total: Totals, read: number, write = 1): number =>
  ((total.prompt - total.repeated) * write + total.repeated * read) / total.prompt;

console.log(
  `# Recall and prompt-cache reuse on real conversations replayed as chats — LoCoMo dev split (${conversations.length} conversations; history ${conversations.map((conversation) => counter.prompt(conversation.turns)).join(', ')} tokens)\n`,
);
console.log(
  `A question every ${REPLAY_PROTOCOL.stride} turns from twice the budget on, evidence ≥ ${REPLAY_PROTOCOL.minDistance} turns back, shuffled order (seed ${REPLAY_PROTOCOL.seed}); budgets are the max_tokens valve (o200k, gpt-4o). Cost is relative to no reuse.\n`,
);
console.log(
  markdownTable(
    [
      'budget',
      'algorithm',
      'questions',
      'evidence recall',
      'prefix reuse',
      'cuts',
      `cost @${READ_PRICES[0]}× reads +${WRITE_PRICE}× writes`,
      ...READ_PRICES.map((read) => `cost @${read}× reads`),
      'over budget',
    ],
    BUDGETS.flatMap((budget) =>
      ALGORITHMS.map((algorithm) => {
        const total = totals.get(`${budget}|${algorithm}`)!;
        return [
          label(budget),
          algorithm === DEFAULT ? `${algorithm} (default)` : algorithm,
          String(total.recalls.length),
          percent(mean(total.recalls)),
          percent(total.repeated / Math.max(total.before, 1)),
          `${total.cuts} of ${total.requests}`,
          percent(cost(total, READ_PRICES[0]!, WRITE_PRICE)),
          ...READ_PRICES.map((read) => percent(cost(total, read))),
          String(total.over),
        ];
      }),
    ),
  ),
);
console.log('');
for (const [budgetText, reuseGoal] of Object.entries(GOALS)) {
  const budget = Number(budgetText);
  // The goal is relative to `recency`: without it in the run (CACHE_ALGOS) or the budget (CACHE_BUDGETS), no verdict.
  const baseline = totals.get(`${budget}|recency`);
  if (!baseline) continue;
  const reference = mean(baseline.recalls);
  for (const algorithm of ALGORITHMS.filter((name) => name !== 'recency')) {
    const total = totals.get(`${budget}|${algorithm}`)!;
    const recall = mean(total.recalls);
    const reuse = total.repeated / Math.max(total.before, 1);
    const met = recall >= reference - 0.02 && reuse >= reuseGoal;
    console.log(
      `${met ? 'PASS' : 'MISS'}  ${label(budget)} ${algorithm}: recall ${percent(recall)} (recency ${percent(reference)}, goal ≥ ${percent(reference - 0.02)}), prefix reuse ${percent(reuse)} (goal ≥ ${percent(reuseGoal)})`,
    );
  }
}
const over = [...totals.values()].reduce((sum, total) => sum + total.over, 0);
console.log(`${over === 0 ? 'PASS' : 'MISS'}  no request over its budget (${over} over)`);
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
