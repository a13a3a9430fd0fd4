/**
 * Selection quality on real conversations: evidence recall on the LoCoMo development split
 * (../shared/data/locomo-dev.json, read at bench time, never copied into the repository).
 *
 * Protocol: each turn is one message (role `user` for speaker_a, else `assistant`; content
 * `${speaker}: ${text}`, plus ` [shares ${blip_caption}]` when present); the question is the last
 * user message; evidence ids are normalised (split on `;`/spaces, `D1:03` → `D1:3`) and questions
 * whose evidence names no turn are skipped; recall = evidence turns kept byte-for-byte ÷ evidence
 * turns. The engine runs through the context filter's own path: its valve defaults with
 * `max_tokens` = the budget → contextOptions → planContext (model gpt-4o, real o200k tokens,
 * question and overheads included). Baselines keep the question and fill the same budget.
 */
import { LruTokenCache, planContext, type EngineOptions } from '../src/domain/engine/index.js';
import { evidenceRecall } from './lib/assistant-recall.js';
import { bm25Selection } from './lib/bm25-selection.js';
import { keptIndexes } from './lib/engine-selection.js';
import { loadLocomo, LOCOMO_CATEGORIES, questionMessages } from './lib/locomo.js';
import { mean } from './lib/metrics.js';
import { previousDefault } from './lib/previous-default.js';
import type { SelectionInput } from './lib/selection.js';
import { slidingWindow } from './lib/sliding-window.js';
import { markdownTable, percent, tokensSentTable } from './lib/table.js';
import { MessageTokenCounter } from './lib/token-count.js';
import { valvesOptions } from './lib/valves-options.js';

const BUDGETS = [1000, 2000, 4000, 8000];
const MODEL = 'gpt-4o';
const DEFAULT = 'engine default (valves)';
const BASELINES = ['plain BM25 over turns', 'sliding window', 'previous default (v0.1 ranking)'];
const GOALS: Record<number, number> = { 2000: 0.9, 8000: 0.96 };

interface Sample {
  method: string;
  budget: number;
  category: number;
  recall: number;
  sent: number;
}

const started = performance.now();
const counter = new MessageTokenCounter();
const tokenCache = new LruTokenCache(200_000);

let sameRoleNeighbours = 0;
let strictRequests = 0;

/** Adjacent sent messages of one role (user after user, assistant after assistant). */
function sameRolePairs(messages: readonly unknown[]): number {
  const roles = messages.map((message) => (message as { role?: string }).role);
  return roles.filter((role, index) => index > 0 && role !== 'system' && role === roles[index - 1]).length;
}

/**
 * The filter's path: valves (max_tokens = budget, plus overrides) → engine options → plan; kept
 * indexes (a message merged for role alternation is sent whole, inside the merged one).
 */
function viaValves(overrides: Partial<EngineOptions> = {}): (input: SelectionInput) => number[] {
  return ({ messages, budget }) => {
    const options = valvesOptions(budget, overrides);
    const result = planContext({ messages: [...messages], model: MODEL, options, tokenCache });
    if (options.roleAlternation === 'strict') {
      strictRequests += 1;
      sameRoleNeighbours += sameRolePairs(result.messages);
    }
    return keptIndexes(result.plan);
  };
}

const methods: Array<{ name: string; select: (input: SelectionInput) => number[] }> = [
  { name: DEFAULT, select: viaValves() },
  { name: 'engine default, role_alternation strict', select: viaValves({ roleAlternation: 'strict' }) },
  {
    name: "engine, smart + recency 1.5 (lethes' defaults)",
    select: viaValves({ weighting: 'smart', recencyFactor: 1.5 }),
  },
  { name: 'plain BM25 over turns', select: bm25Selection },
  { name: 'sliding window', select: slidingWindow },
  { name: 'previous default (v0.1 ranking)', select: previousDefault },
];

const conversations = loadLocomo();
const samples: Sample[] = [];
let skipped = 0;
for (const conversation of conversations) {
  skipped += conversation.skipped;
  for (const question of conversation.questions) {
    const messages = questionMessages(conversation, question);
    const tokens = counter.messages(messages);
    for (const budget of BUDGETS) {
      for (const method of methods) {
        const { recall, sent } = evidenceRecall(method, { messages, tokens, budget }, question.evidence);
        samples.push({ method: method.name, budget, category: question.category, recall, sent });
      }
    }
  }
}

const pick = (method: string, budget?: number, category?: number): Sample[] =>
  samples.filter(
    (sample) =>
      sample.method === method &&
      (budget === undefined || sample.budget === budget) &&
      (category === undefined || sample.category === category),
  );
const recallOf = (list: readonly Sample[]): number => mean(list.map((sample) => sample.recall));
const label = (budget: number): string => `${budget / 1000}k`;
const questions = pick(DEFAULT, BUDGETS[0]).length;
const categories = Object.keys(LOCOMO_CATEGORIES).map(Number);
const history = conversations.map((conversation) => counter.prompt(conversation.turns));

console.log(
  `# Evidence recall on real conversations — LoCoMo dev split (${conversations.length} conversations, ${questions} questions, ${skipped} skipped for evidence naming no turn)\n`,
);
console.log(
  `Turns per conversation: ${conversations.map((conversation) => conversation.turns.length).join(', ')}; history ${history.join(', ')} tokens (o200k). Budgets are the max_tokens valve in real tokens.\n`,
);
console.log('## Evidence recall (share of evidence turns kept byte-for-byte)\n');
console.log(
  markdownTable(
    ['method', ...BUDGETS.map(label)],
    methods.map((method) => [method.name, ...BUDGETS.map((budget) => percent(recallOf(pick(method.name, budget))))]),
  ),
);

console.log('\n## Default vs best baseline\n');
const beats: boolean[] = [];
console.log(
  markdownTable(
    ['budget', DEFAULT, 'best baseline', 'ratio', 'questions better / worse'],
    BUDGETS.map((budget) => {
      const ours = pick(DEFAULT, budget);
      const best = BASELINES.map((name) => ({ name, recall: recallOf(pick(name, budget)) })).sort(
        (a, b) => b.recall - a.recall,
      )[0]!;
      const theirs = pick(best.name, budget); // same question order for every method
      const better = ours.filter((sample, index) => sample.recall > theirs[index]!.recall).length;
      const worse = ours.filter((sample, index) => sample.recall < theirs[index]!.recall).length;
      beats.push(recallOf(ours) > best.recall);
      return [
        label(budget),
        percent(recallOf(ours)),
        `${best.name} ${percent(best.recall)}`,
        `${(recallOf(ours) / Math.max(best.recall, 1e-9)).toFixed(2)}×`,
        `${better} / ${worse}`,
      ];
    }),
  ),
);

console.log('\n## By category (default, per budget; questions per category in brackets)\n');
console.log(
  markdownTable(
    ['category', ...BUDGETS.map(label)],
    categories.map((category) => [
      `${LOCOMO_CATEGORIES[category]} (${pick(DEFAULT, BUDGETS[0], category).length})`,
      ...BUDGETS.map((budget) => percent(recallOf(pick(DEFAULT, budget, category)))),
    ]),
  ),
);

console.log('\n## By category at 2k (every method)\n');
console.log(
  markdownTable(
    ['method', ...categories.map((category) => LOCOMO_CATEGORIES[category]!)],
    methods.map((method) => [
      method.name,
      ...categories.map((category) => percent(recallOf(pick(method.name, 2000, category)))),
    ]),
  ),
);

console.log('\n## Questions with all their evidence kept\n');
console.log(
  markdownTable(
    ['method', ...BUDGETS.map(label)],
    methods.map((method) => [
      method.name,
      ...BUDGETS.map((budget) =>
        percent(mean(pick(method.name, budget).map((sample) => (sample.recall === 1 ? 1 : 0)))),
      ),
    ]),
  ),
);

console.log('\n## Tokens sent (mean; max) — real o200k tokens, overheads included\n');
console.log(
  tokensSentTable(
    methods.map((method) => method.name),
    BUDGETS,
    label,
    (method, budget) => pick(method, budget).map((sample) => sample.sent),
  ),
);

const over = pick(DEFAULT).filter((sample) => sample.sent > sample.budget).length;
console.log('');
for (const [budget, goal] of Object.entries(GOALS)) {
  const recall = recallOf(pick(DEFAULT, Number(budget)));
  console.log(
    `${recall >= goal ? 'PASS' : 'MISS'}  default ≥ ${percent(goal)} at ${label(Number(budget))}: ${percent(recall)}`,
  );
}
console.log(`${beats.every(Boolean) ? 'PASS' : 'MISS'}  default beats every baseline at every budget`);
console.log(
  `${over === 0 ? 'PASS' : 'MISS'}  default never exceeds max_tokens (${over} of ${pick(DEFAULT).length} requests over)`,
);
const defaultPairs = (() => {
  let pairs = 0;
  for (const conversation of conversations.slice(0, 1))
    for (const question of conversation.questions.slice(0, 50)) {
      const options = valvesOptions(2000);
      pairs += sameRolePairs(
        planContext({ messages: questionMessages(conversation, question), model: MODEL, options, tokenCache }).messages,
      );
    }
  return pairs;
})();
console.log(
  `${sameRoleNeighbours === 0 ? 'PASS' : 'MISS'}  role_alternation strict: ${sameRoleNeighbours} same-role neighbours in ${strictRequests} requests (role_alternation any, 50 questions at 2k: ${defaultPairs})`,
);
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);
