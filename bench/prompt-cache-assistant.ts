/**
 * Recall and prompt-cache reuse on assistant chats replayed as chats (LongMemEval S dev split,
 * ../shared/data/longmemeval-s-dev.json.gz, read at bench time; never copied into the repository), beside
 * `bench:cache` on LoCoMo. Checks `cache_stable` on chats it was not tuned on.
 *
 * Protocol: one chat per question, its ~500-message history (sessions in date order) growing message by message;
 * from twice the budget on, every STRIDE messages (2: each exchange, as in a real chat) the question is asked as a side branch (never kept in the
 * history) once all its evidence is at least 20 messages back. Each request goes through the context filter's own
 * path (valve defaults, max_tokens = the budget, the algorithm named, gpt-4o, o200k) with the chat's previous
 * prompt as `previousSequence`. Recall: the share of evidence turns sent byte-for-byte, averaged over requests.
 * Prefix reuse: tokens of the prompt before the question that repeat the previous request's sent messages from the
 * start ÷ those tokens. CACHE_ALGOS=a,b and CACHE_BUDGETS=2000,4000 narrow the run.
 */
import { type AlgorithmName, LruTokenCache, planContext } from '../src/domain/engine/index.js';
import type { ChatMessage } from './lib/chat-message.js';
import { keptIndexes } from './lib/engine-selection.js';
import { LONGMEMEVAL_DEV_PATH, loadLongMemEval } from './lib/longmemeval.js';
import { mean } from './lib/metrics.js';
import { commonPrefixLength, prefixTokens } from './lib/prefix-reuse.js';
import { markdownTable, percent } from './lib/table.js';
import { MessageTokenCounter } from './lib/token-count.js';
import { valvesOptions } from './lib/valves-options.js';

const BUDGETS = process.env.CACHE_BUDGETS?.split(',').map(Number) ?? [2000, 4000];
const ALGORITHMS = (process.env.CACHE_ALGOS?.split(',') as AlgorithmName[] | undefined) ?? ['recency', 'cache_stable'];
/**
 * Each chat has one question, so the replay asks it again at every request: the best case for a core chosen for the
 * question. The `alternating` rows ask another chat's question (its topic absent here) at every other request, as a
 * user changing the subject would; recall counts the chat's own question only. CACHE_ALTERNATE=0 leaves them out.
 */
const MODES = process.env.CACHE_ALTERNATE === '0' ? ['same'] : ['same', 'alternating'];
/** Every exchange (a user message and its answer) is a request, as in a real chat. */
const STRIDE = 2;
const MIN_DISTANCE = 20;
/** Goal per budget: recall within 2 points of `recency`, prefix reuse at least this. */
const GOALS: Record<number, number> = { 2000: 0.5, 4000: 0.65 };
/** The notes of a plan that cut the history carried from the previous prompt. */
const CUT_NOTE = /^(prefix_cache: over budget, trimmed|cache_stable: the core restarted)/;

const started = performance.now();
const questions = loadLongMemEval();
if (!questions) {
  console.log(`# LongMemEval S dev: data not found at ${LONGMEMEVAL_DEV_PATH}; assistant-chat cache replay skipped`);
  process.exit(0);
}
const counter = new MessageTokenCounter();
const tokenCache = new LruTokenCache(400_000);
const results = new Map<
  string,
  {
    recalls: number[];
    before: number;
    repeated: number;
    over: number;
    mandatoryOver: number;
    cuts: number;
    requests: number;
  }
>();

for (const budget of BUDGETS) {
  for (const algorithm of ALGORITHMS) {
    for (const mode of MODES) {
      // recency does not read the previous prompt: asking another question in between changes nothing for it.
      if (mode === 'alternating' && algorithm === 'recency') continue;
      const total = {
        recalls: [] as number[],
        before: 0,
        repeated: 0,
        over: 0,
        mandatoryOver: 0,
        cuts: 0,
        requests: 0,
      };
      results.set(`${budget}|${algorithm}${mode === 'same' ? '' : ` (${mode})`}`, total);
      const options = valvesOptions(budget, { algorithm });
      for (const [at, question] of questions.entries()) {
        const history = question.messages.slice(0, -1);
        const own = question.messages.at(-1)!;
        const other = questions[(at + 1) % questions.length]!.messages.at(-1)!;
        let request = 0;
        const tokens = counter.messages(history);
        let start = 0;
        for (let sum = 0; start < history.length && sum < 2 * budget; start += 1) sum += tokens[start]!;
        const first = Math.max(start, Math.max(...question.evidence) + MIN_DISTANCE + 1);
        let previousSequence: string[] | undefined;
        let previousSent: ChatMessage[] = [];
        for (let end = first; end <= history.length; end += STRIDE) {
          const ask = mode === 'alternating' && request++ % 2 === 1 ? other : own;
          const messages = [...history.slice(0, end), ask];
          const result = planContext({ messages, model: 'gpt-4o', options, tokenCache, previousSequence });
          const kept = new Set(keptIndexes(result.plan));
          if (ask === own)
            total.recalls.push(question.evidence.filter((index) => kept.has(index)).length / question.evidence.length);
          if (result.plan.tokensAfter > budget) {
            if (result.plan.overBudget) total.mandatoryOver += 1;
            else total.over += 1;
          }
          const sent = (result.messages as ChatMessage[]).filter((message) => message !== ask);
          const sentTokens = counter.messages(sent);
          if (previousSequence) {
            total.before += sentTokens.reduce((sum, value) => sum + value, 0);
            total.repeated += prefixTokens(sentTokens, commonPrefixLength(previousSent, sent));
            total.requests += 1;
            if (result.plan.notes.some((note) => CUT_NOTE.test(note))) total.cuts += 1;
          }
          previousSequence = result.sequence.filter((_, at) => result.messages[at] !== ask);
          previousSent = sent;
        }
      }
    }
  }
}

const label = (budget: number): string => `${budget / 1000}k`;
console.log(
  `# Recall and prompt-cache reuse on assistant chats replayed as chats — LongMemEval S dev (${questions.length} chats)\n`,
);
console.log(
  `The question asked every ${STRIDE} messages from twice the budget on, once its evidence is ≥ ${MIN_DISTANCE} messages back; budgets are the max_tokens valve (o200k, gpt-4o).\n`,
);
console.log(
  markdownTable(
    [
      'budget',
      'algorithm',
      'requests',
      'evidence recall',
      'prefix reuse',
      'cuts',
      'over budget',
      'over: what must be kept is',
    ],
    BUDGETS.flatMap((budget) =>
      [...results.keys()]
        .filter((key) => key.startsWith(`${budget}|`))
        .map((key) => {
          const algorithm = key.slice(key.indexOf('|') + 1);
          const total = results.get(key)!;
          return [
            label(budget),
            algorithm,
            String(total.recalls.length),
            percent(mean(total.recalls)),
            percent(total.repeated / Math.max(total.before, 1)),
            `${total.cuts} of ${total.requests}`,
            String(total.over),
            String(total.mandatoryOver),
          ];
        }),
    ),
  ),
);
console.log('');
for (const [budgetText, reuseGoal] of Object.entries(GOALS)) {
  const budget = Number(budgetText);
  const reference = results.get(`${budget}|recency`);
  for (const name of ['cache_stable', 'cache_stable (alternating)']) {
    const total = results.get(`${budget}|${name}`);
    if (!reference || !total) continue;
    const recall = mean(total.recalls);
    const reuse = total.repeated / Math.max(total.before, 1);
    const met = recall >= mean(reference.recalls) - 0.02 && reuse >= reuseGoal;
    console.log(
      `${met ? 'PASS' : 'MISS'}  ${label(budget)} ${name}: recall ${percent(recall)} (recency ${percent(mean(reference.recalls))}), prefix reuse ${percent(reuse)} (goal ≥ ${percent(reuseGoal)})`,
    );
  }
}
const over = [...results.values()].reduce((sum, total) => sum + total.over, 0);
const forced = [...results.values()].reduce((sum, total) => sum + total.mandatoryOver, 0);
console.log(
  `${over === 0 ? 'PASS' : 'MISS'}  no request over its budget (${over} over; ${forced} more whose current turn and last recent messages alone exceed it, flagged overBudget)`,
);
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
