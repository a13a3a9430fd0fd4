/**
 * Prompt-cache economics: replays long conversations turn by turn under a budget smaller than
 * the history and measures, per algorithm, how much of each prompt repeats the previous
 * request's prefix (what providers bill at cache-read prices) and what that costs at gpt-4o prices.
 */
import { LruTokenCache, planContext, type AlgorithmName } from '../src/domain/engine/index.js';
import { GPT_4O_PRICES, promptCost } from './lib/cache-cost.js';
import type { ChatMessage } from './lib/chat-message.js';
import { generateConversation, questionRequest, type BenchConversation } from './lib/conversation-generator.js';
import { evidenceRecall, mean } from './lib/metrics.js';
import { commonPrefixLength, openAiCachedTokens, prefixTokens } from './lib/prefix-reuse.js';
import { slidingWindow } from './lib/sliding-window.js';
import { markdownTable, percent } from './lib/table.js';
import { MessageTokenCounter, PRIMING_TOKENS } from './lib/token-count.js';

const SEEDS = [11, 12, 13, 14];
const SESSIONS = 26;
const BUDGETS = [4000, 8000];
const ALGORITHMS: AlgorithmName[] = ['greedy', 'recency', 'dependency', 'prefix_cache'];
const WINDOW = 'sliding window';

interface Totals {
  requests: number;
  trimmed: number;
  prompt: number;
  prefix: number;
  billable: number;
  hits: number;
  costNoCache: number;
  costCached: number;
  costBillable: number;
  overBudget: number;
  shares: number[];
  /** Evidence recall of the planted questions, each asked as a side branch at its point of the replay. */
  recalls: number[];
}

const started = performance.now();
const counter = new MessageTokenCounter();
const tokenCache = new LruTokenCache(200_000);
const methods = [...ALGORITHMS, WINDOW];
const totals = new Map<string, Totals>();
const historyTokens: number[] = [];
const empty = (): Totals => ({
  requests: 0,
  trimmed: 0,
  prompt: 0,
  prefix: 0,
  billable: 0,
  hits: 0,
  costNoCache: 0,
  costCached: 0,
  costBillable: 0,
  overBudget: 0,
  shares: [],
  recalls: [],
});

for (const budget of BUDGETS) {
  for (const seed of SEEDS) {
    const conversation = generateConversation({ seed, sessions: SESSIONS });
    const { messages } = conversation;
    historyTokens.push(counter.prompt(messages));
    for (const method of methods) {
      const key = `${budget}|${method}`;
      const total = totals.get(key) ?? empty();
      totals.set(key, total);
      let previousSent: ChatMessage[] = [];
      let previousSequence: string[] | undefined;
      const plan = (request: ChatMessage[]): { sent: ChatMessage[]; kept: Set<number>; sequence?: string[] } => {
        if (method === WINDOW) {
          const kept = slidingWindow({ messages: request, tokens: counter.messages(request), budget });
          return { sent: kept.map((index) => request[index]!), kept: new Set(kept) };
        }
        const result = planContext({
          messages: request,
          model: 'gpt-4o',
          options: { algorithm: method as AlgorithmName, maxTokens: budget },
          tokenCache,
          previousSequence,
        });
        const kept = result.plan.entries
          .filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned')
          .map((entry) => entry.index);
        return { sent: result.messages as ChatMessage[], kept: new Set(kept), sequence: result.sequence };
      };
      // Request k: everything up to and including the k-th user message (odd indices are users).
      for (let end = 2; end <= messages.length; end += 2) {
        // A planted question asked instead of this turn's user message (a side branch: the replay goes on unchanged).
        for (const question of askedAt(conversation, end - 1)) {
          total.recalls.push(evidenceRecall(question.evidence, plan(questionRequest(conversation, question)).kept));
        }
        const request = messages.slice(0, end);
        const planned = plan(request);
        const sent = planned.sent;
        if (planned.sequence) previousSequence = planned.sequence;
        const sentTokens = counter.messages(sent);
        const prompt = sentTokens.reduce((sum, value) => sum + value, PRIMING_TOKENS);
        const prefix = prefixTokens(sentTokens, commonPrefixLength(previousSent, sent));
        const billable = openAiCachedTokens(prefix);
        total.requests += 1;
        if (sent.length < request.length) total.trimmed += 1;
        if (prompt > budget) total.overBudget += 1;
        total.prompt += prompt;
        total.prefix += prefix;
        total.billable += billable;
        if (prefix > 0) total.hits += 1;
        total.shares.push(prefix / prompt);
        total.costNoCache += promptCost(prompt, 0, GPT_4O_PRICES);
        total.costCached += promptCost(prompt, prefix, GPT_4O_PRICES);
        total.costBillable += promptCost(prompt, billable, GPT_4O_PRICES);
        previousSent = sent;
      }
    }
  }
}

/** Planted questions asked at message index `index` (in place of that user message). */
function askedAt(conversation: BenchConversation, index: number) {
  return conversation.questions.filter((question) => question.askAt === index);
}

const usd = (value: number): string => `$${value.toFixed(4)}`;
console.log(
  `# Prompt-cache economics — ${SEEDS.length} conversations replayed turn by turn (history ${historyTokens.slice(0, SEEDS.length).join(', ')} tokens at the end), gpt-4o input $${GPT_4O_PRICES.input}/M, cache read $${GPT_4O_PRICES.cacheRead}/M`,
);
console.log(
  'Prefix reuse = tokens of the longest common prefix (whole messages) with the previous request ÷ prompt tokens. "OpenAI rule" bills a prefix only from 1,024 tokens, in 128-token blocks.\n',
);
const verdicts: string[] = [];
for (const budget of BUDGETS) {
  console.log(`## Budget ${budget} tokens\n`);
  console.log(
    markdownTable(
      [
        'algorithm',
        'requests (trimmed)',
        'mean prompt',
        'prefix reuse',
        'median turn',
        'OpenAI rule',
        'cost, no cache',
        'cost, cached',
        'saving',
        'saving (OpenAI rule)',
        'over budget',
        'evidence recall',
      ],
      methods.map((method) => {
        const total = totals.get(`${budget}|${method}`)!;
        const sorted = [...total.shares].sort((a, b) => a - b);
        return [
          method,
          `${total.requests} (${total.trimmed})`,
          String(Math.round(total.prompt / total.requests)),
          percent(total.prefix / total.prompt),
          percent(sorted[Math.floor(sorted.length / 2)] ?? 0),
          percent(total.billable / total.prompt),
          usd(total.costNoCache),
          usd(total.costCached),
          percent(1 - total.costCached / total.costNoCache),
          percent(1 - total.costBillable / total.costNoCache),
          String(total.overBudget),
          `${percent(mean(total.recalls))} (n=${total.recalls.length})`,
        ];
      }),
    ),
  );
  const prefixCache = totals.get(`${budget}|prefix_cache`)!;
  const window = totals.get(`${budget}|${WINDOW}`)!;
  // Only the requests that had to be trimmed show the difference: the first ones fit whole.
  const trimmedShares = (total: Totals): number[] => total.shares.slice(total.requests - total.trimmed);
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  console.log(
    `\nprefix reuse on trimmed turns (mean / median): ${methods
      .map((method) => {
        const shares = trimmedShares(totals.get(`${budget}|${method}`)!);
        return `${method} ${percent(mean(shares))} / ${percent(median(shares))}`;
      })
      .join(', ')}\n`,
  );
  const cacheShares = trimmedShares(prefixCache);
  const windowShares = trimmedShares(window);
  verdicts.push(
    `${prefixCache.prefix / prefixCache.prompt >= 0.5 && median(cacheShares) >= 0.5 ? 'PASS' : 'MISS'}  budget ${budget}: prefix_cache keeps most of the prefix stable (${percent(prefixCache.prefix / prefixCache.prompt)} of all prompt tokens; median trimmed turn ${percent(median(cacheShares))})`,
  );
  verdicts.push(
    `${median(windowShares) <= 0.1 ? 'PASS' : 'MISS'}  budget ${budget}: sliding window keeps almost none (median trimmed turn ${percent(median(windowShares))}; mean ${percent(mean(windowShares))}, from turns where the window had slack and did not move)`,
  );
}
for (const line of verdicts) console.log(line);
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
