/**
 * Selection on generated chats (what the real-data bench cannot show): evidence recall of the
 * engine vs baselines on seeded multi-session conversations, on seeded coding/tool-use chats
 * (tool pairs, code, errors, decisions), and with summaries, at 1k–8k token budgets. These
 * generators were written by us; the headline quality figures come from bench/recall.ts.
 */
import { LruTokenCache } from '../src/domain/engine/index.js';
import { bm25Selection } from './lib/bm25-selection.js';
import {
  generateConversation,
  questionRequest,
  type BenchQuestion,
  type QuestionKind,
} from './lib/conversation-generator.js';
import { engineSelection, keptIndexes } from './lib/engine-selection.js';
import { evidenceRecall, mean, recentRetention } from './lib/metrics.js';
import { randomSelection } from './lib/random-selection.js';
import { selectionTokens, type SelectionInput } from './lib/selection.js';
import { slidingWindow } from './lib/sliding-window.js';
import { markdownTable, percent } from './lib/table.js';
import { MessageTokenCounter } from './lib/token-count.js';
import { printSummarizingRecall } from './lib/summarizing-recall.js';
import { planContext } from '../src/domain/engine/index.js';
import type { ChatMessage } from './lib/chat-message.js';
import type { ToolChatMessage } from './lib/tool-chat-generator.js';
import { toolRecallRows } from './lib/tool-recall.js';

const CONVERSATIONS = 20;
const BUDGETS = [1000, 2000, 4000, 8000];
const KINDS: QuestionKind[] = ['single', 'paraphrase', 'temporal', 'multi-session', 'assistant'];
const DEFAULT = 'engine default';
const BASELINES = ['sliding window', 'random', 'BM25'];

interface Sample {
  method: string;
  budget: number;
  kind: QuestionKind;
  recall: number;
  recent: number;
  used: number;
}

const started = performance.now();
const counter = new MessageTokenCounter();
const tokenCache = new LruTokenCache(200_000);
const methods: Array<{ name: string; select: (input: SelectionInput, salt: number) => number[] }> = [
  { name: DEFAULT, select: engineSelection({}, tokenCache) },
  { name: 'engine greedy', select: engineSelection({ algorithm: 'greedy' }, tokenCache) },
  { name: 'engine dependency', select: engineSelection({ algorithm: 'dependency' }, tokenCache) },
  {
    name: 'engine lethes defaults (smart, recency 1.5)',
    select: engineSelection({ weighting: 'smart', recencyFactor: 1.5 }, tokenCache),
  },
  { name: 'sliding window', select: slidingWindow },
  { name: 'random', select: (input, salt) => randomSelection(salt)(input) },
  { name: 'BM25', select: (input) => bm25Selection(input) },
  { name: 'BM25 + last 4 (diagnostic)', select: (input) => bm25Selection(input, 4) },
];

const samples: Sample[] = [];
const historyTokens: number[] = [];
let queries = 0;
for (let seed = 1; seed <= CONVERSATIONS; seed++) {
  const conversation = generateConversation({ seed });
  conversation.questions.forEach((question: BenchQuestion, questionIndex) => {
    queries += 1;
    const messages = questionRequest(conversation, question);
    const tokens = counter.messages(messages);
    historyTokens.push(counter.prompt(messages));
    for (const budget of BUDGETS) {
      for (const method of methods) {
        const kept = method.select({ messages, tokens, budget }, seed * 1000 + questionIndex);
        const keptSet = new Set(kept);
        samples.push({
          method: method.name,
          budget,
          kind: question.kind,
          recall: evidenceRecall(question.evidence, keptSet),
          recent: recentRetention(messages.length, keptSet),
          used: selectionTokens(tokens, kept) / budget,
        });
      }
    }
  });
}

const pick = (method: string, budget?: number, kind?: QuestionKind): Sample[] =>
  samples.filter(
    (sample) =>
      sample.method === method &&
      (budget === undefined || sample.budget === budget) &&
      (kind === undefined || sample.kind === kind),
  );
const budgetLabel = (budget: number): string => `${budget / 1000}k`;

console.log(
  `# Evidence recall — ${CONVERSATIONS} conversations, ${queries} questions (${KINDS.map((kind) => `${kind}: ${samples.filter((s) => s.kind === kind && s.method === DEFAULT && s.budget === BUDGETS[0]).length}`).join(', ')})`,
);
console.log(
  `History at question time: mean ${Math.round(mean(historyTokens))} tokens, min ${Math.min(...historyTokens)}, max ${Math.max(...historyTokens)}. Budgets include the system prompt; all methods use the engine's token counting.\n`,
);

console.log('## Evidence recall (share of needed messages kept in full)\n');
console.log(
  'Baselines: sliding window, random, BM25 (each also keeps the system prompt and the last user message). "BM25 + last 4" is a diagnostic, not a baseline: BM25 with the engine\'s recent-turn guarantee.\n',
);
console.log(
  markdownTable(
    ['method', ...BUDGETS.map(budgetLabel)],
    methods.map((method) => [
      method.name,
      ...BUDGETS.map((budget) => percent(mean(pick(method.name, budget).map((s) => s.recall)))),
    ]),
  ),
);

console.log('\n## Default vs best baseline (ratio of recalls)\n');
const verdicts: boolean[] = [];
console.log(
  markdownTable(
    ['budget', DEFAULT, 'best baseline', 'ratio', 'questions better / worse', 'beats all'],
    BUDGETS.map((budget) => {
      const oursSamples = pick(DEFAULT, budget);
      const ours = mean(oursSamples.map((s) => s.recall));
      const best = BASELINES.map((name) => ({ name, recall: mean(pick(name, budget).map((s) => s.recall)) })).sort(
        (a, b) => b.recall - a.recall,
      )[0]!;
      // Samples are recorded in the same question order for every method, so they pair up.
      const theirs = pick(best.name, budget);
      const better = oursSamples.filter((sample, index) => sample.recall > (theirs[index]?.recall ?? 0)).length;
      const worse = oursSamples.filter((sample, index) => sample.recall < (theirs[index]?.recall ?? 0)).length;
      verdicts.push(ours > best.recall);
      return [
        budgetLabel(budget),
        percent(ours),
        `${best.name} ${percent(best.recall)}`,
        `${(ours / Math.max(best.recall, 1e-9)).toFixed(2)}×`,
        `${better} / ${worse}`,
        ours > best.recall ? 'yes' : 'NO',
      ];
    }),
  ),
);

console.log('\n## Recall by question kind (mean over budgets)\n');
console.log(
  markdownTable(
    ['method', ...KINDS],
    methods.map((method) => [
      method.name,
      ...KINDS.map((kind) => percent(mean(pick(method.name, undefined, kind).map((s) => s.recall)))),
    ]),
  ),
);

console.log('\n## Recent-turn retention (share of the last 4 messages kept)\n');
console.log(
  markdownTable(
    ['method', ...BUDGETS.map(budgetLabel)],
    methods.map((method) => [
      method.name,
      ...BUDGETS.map((budget) => percent(mean(pick(method.name, budget).map((s) => s.recent)))),
    ]),
  ),
);

console.log('\n## Budget use (prompt tokens / budget: mean, max)\n');
console.log(
  markdownTable(
    ['method', ...BUDGETS.map(budgetLabel)],
    methods.map((method) => [
      method.name,
      ...BUDGETS.map((budget) => {
        const used = pick(method.name, budget).map((s) => s.used);
        return `${mean(used).toFixed(2)}, ${Math.max(...used).toFixed(2)}`;
      }),
    ]),
  ),
);

const recentOk = BUDGETS.every((budget) => mean(pick(DEFAULT, budget).map((s) => s.recent)) === 1);
const withinBudget = pick(DEFAULT).every((s) => s.used <= 1);
console.log('');
console.log(`${verdicts.every(Boolean) ? 'PASS' : 'MISS'}  default configuration beats every baseline at every budget`);
console.log(`${recentOk ? 'PASS' : 'MISS'}  default configuration keeps 100% of the last 4 messages`);
console.log(`${withinBudget ? 'PASS' : 'MISS'}  default configuration stays within the budget`);
console.log('\n## Coding and tool-use chats (seeded, bench/lib/tool-chat-generator.ts)\n');
const keptBy =
  (options: Record<string, unknown>) =>
  (messages: readonly ToolChatMessage[], budget: number): number[] =>
    keptIndexes(
      planContext({ messages: [...messages], model: 'gpt-4o', options: { ...options, maxTokens: budget }, tokenCache })
        .plan,
    );
const tools = toolRecallRows([
  { name: DEFAULT, select: keptBy({}) },
  { name: 'engine smart (tool penalty 0.5)', select: keptBy({ weighting: 'smart' }) },
  {
    name: 'sliding window',
    select: (messages, budget) =>
      slidingWindow({
        messages: messages as unknown as ChatMessage[],
        tokens: counter.messages(messages),
        budget,
      }),
  },
]);
console.log(`${tools.summary}\n`);
console.log(markdownTable(tools.header, tools.rows));
console.log('\nBy kind (mean over budgets):\n');
console.log(markdownTable(tools.perKind.header, tools.perKind.rows));
console.log('\nValidity:\n');
console.log(markdownTable(tools.validity.header, tools.validity.rows));
console.log('\n## Summarizing configuration (issue 7): deterministic extractive summarizer vs dropping\n');
await printSummarizingRecall();
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
