/**
 * Selection quality on assistant chats: evidence recall on the LongMemEval S development split
 * (../shared/data/longmemeval-s-dev.json.gz, 91 questions, read at bench time, never copied into the repository).
 *
 * Protocol: each question's ~50 sessions in date order (a stable sort of `haystack_dates`), each turn one
 * message with its role, then the question as the last user message; evidence = the turns marked `has_answer`;
 * recall = evidence turns kept byte-for-byte ÷ evidence turns, averaged over questions. The engine runs through
 * the context filter's own path (valve defaults, `max_tokens` = the budget, model gpt-4o, real o200k tokens with
 * the question and overheads included); the baselines keep the question and fill the same budget with the same
 * token counts.
 */
import { assistantRecall, engineViaValves, type RecallMethod, recallOf } from './lib/assistant-recall.js';
import { bm25Selection } from './lib/bm25-selection.js';
import { LONGMEMEVAL_DEV_PATH, loadLongMemEval } from './lib/longmemeval.js';
import { mean } from './lib/metrics.js';
import { slidingWindow } from './lib/sliding-window.js';
import { markdownTable, percent, tokensSentTable } from './lib/table.js';
import { MessageTokenCounter } from './lib/token-count.js';

const BUDGETS = [2000, 8000, 32000];
const DEFAULT = 'engine default (valves)';
const BM25 = 'plain BM25 over messages';
/** Eunoe's lead over plain BM25 the default is held to, in points, at every budget. */
const LEAD = 0.03;

const started = performance.now();
const questions = loadLongMemEval();
if (!questions) {
  console.log(`# LongMemEval S dev: data not found at ${LONGMEMEVAL_DEV_PATH}; assistant-chat recall skipped`);
  process.exit(0);
}

const methods: RecallMethod[] = [
  { name: DEFAULT, select: engineViaValves() },
  { name: BM25, select: bm25Selection },
  { name: 'keep newest (sliding window)', select: slidingWindow },
];
const counter = new MessageTokenCounter();
const samples = assistantRecall(questions, methods, BUDGETS, counter);
const label = (budget: number): string => `${budget / 1000}k`;
const types = [...new Set(questions.map((question) => question.type))].sort();
const history = questions.map((question) => counter.prompt(question.messages.slice(0, -1)));
const lengths = questions.flatMap((question) => question.messages.slice(0, -1));
const meanTokens = (role: string): number =>
  mean(lengths.filter((message) => message.role === role).map((message) => counter.message(message)));

console.log(
  `# Evidence recall on assistant chats — LongMemEval S dev split (${questions.length} questions, ${questions.reduce((sum, q) => sum + q.evidence.length, 0)} evidence turns)\n`,
);
console.log(
  `Messages per question: mean ${Math.round(mean(questions.map((q) => q.messages.length)))}; history mean ${Math.round(mean(history))} tokens (o200k); mean message: user ${Math.round(meanTokens('user'))}, assistant ${Math.round(meanTokens('assistant'))} tokens. Budgets are the max_tokens valve in real tokens.\n`,
);
console.log('## Evidence recall (share of evidence turns kept byte-for-byte)\n');
console.log(
  markdownTable(
    ['method', ...BUDGETS.map(label)],
    methods.map((method) => [method.name, ...BUDGETS.map((budget) => percent(recallOf(samples, method.name, budget)))]),
  ),
);
for (const budget of BUDGETS) {
  console.log(`\n## By question type at ${label(budget)} (questions in brackets)\n`);
  console.log(
    markdownTable(
      ['question type', ...methods.map((method) => method.name)],
      types.map((type) => [
        `${type} (${questions.filter((question) => question.type === type).length})`,
        ...methods.map((method) => percent(recallOf(samples, method.name, budget, type))),
      ]),
    ),
  );
}
console.log('\n## Tokens sent (mean; max) — real o200k tokens, overheads included\n');
console.log(
  tokensSentTable(
    methods.map((method) => method.name),
    BUDGETS,
    label,
    (method, budget) => samples.filter((s) => s.method === method && s.budget === budget).map((s) => s.sent),
  ),
);
console.log('');
for (const budget of BUDGETS) {
  const ours = recallOf(samples, DEFAULT, budget);
  const theirs = recallOf(samples, BM25, budget);
  console.log(
    `${ours - theirs >= LEAD ? 'PASS' : 'MISS'}  default ≥ plain BM25 + ${LEAD * 100} points at ${label(budget)}: ${percent(ours)} vs ${percent(theirs)}`,
  );
}
const over = samples.filter((sample) => sample.sent > sample.budget);
console.log(
  `${over.length === 0 ? 'PASS' : 'MISS'}  no method exceeds max_tokens (${over.length} of ${samples.length} requests over)`,
);
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
