/**
 * Seeded coding/tool-use conversations (OpenAI format: assistant `tool_calls` + `tool` results) with planted
 * questions whose evidence is an earlier tool result or assistant decision, for checking tool-heavy chats.
 */
import { createRng, type Rng } from './rng.js';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export type ToolChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };
export type ToolQuestionKind = 'code-recall' | 'error-recall' | 'decision' | 'recent-followup';
export const TOOL_QUESTION_KINDS: readonly ToolQuestionKind[] = [
  'code-recall',
  'error-recall',
  'decision',
  'recent-followup',
];
/** A question asked after `messages.slice(0, askAt)`; evidence are message indexes before askAt. */
export interface ToolQuestion {
  kind: ToolQuestionKind;
  text: string;
  evidence: number[];
  askAt: number;
}
export interface ToolConversation {
  seed: number;
  messages: ToolChatMessage[];
  questions: ToolQuestion[];
}

interface Module {
  fn: string;
  noun: string;
  qual: string;
  path: string;
  constName: string;
  constValue: number;
  field: string;
  amount: string;
  key?: string;
}
interface Failure {
  index: number;
  fn: string;
  behaviour: string;
  para: string;
}
interface Decision {
  topic: string;
  para: string;
  options: [string, string];
  reason: string;
}

const projects = [
  {
    name: 'ledgerly',
    blurb: 'a small invoicing API',
    nouns: ['invoice', 'ledger', 'coupon', 'payout', 'tenant', 'refund'],
  },
  {
    name: 'trackpost',
    blurb: 'a parcel-tracking service',
    nouns: ['shipment', 'carrier', 'manifest', 'parcel', 'webhook', 'depot'],
  },
  {
    name: 'podnest',
    blurb: 'a podcast feed aggregator',
    nouns: ['feed', 'episode', 'enclosure', 'chapter', 'transcript', 'subscriber'],
  },
];
const verbs = [
  'parse',
  'normalize',
  'compute',
  'resolve',
  'merge',
  'validate',
  'render',
  'schedule',
  'reconcile',
  'throttle',
  'dedupe',
  'hydrate',
];
const quals = ['Window', 'Header', 'Totals', 'Digest', 'Cursor', 'Batch', 'Rules', 'Snapshot', 'Budget', 'Index'];
const fields = ['updatedAt', 'createdAt', 'dueAt', 'settledAt', 'scannedAt', 'publishedAt'];
const amounts = ['amountCents', 'weightGrams', 'retryCount', 'durationSec', 'priority'];
const keys = ['tenantId', 'region', 'currency', 'status', 'channel'];
const consts = ['STALE_AFTER_MS', 'GRACE_PERIOD_MS', 'MAX_BATCH_AGE_MS', 'CUTOFF_MS', 'DEDUPE_WINDOW_MS'];
const helperNames = ['toKey', 'isStale', 'clamp', 'pickLatest', 'formatRow', 'splitChunk', 'sumUp', 'hasDuplicate'];
const behaviours = [
  'skips archived rows',
  'keeps the original order',
  'rounds half up',
  'handles an empty batch',
  'rejects duplicate ids',
  'respects the grace period',
  'ignores unknown currencies',
];
const decisions: Decision[] = [
  {
    topic: 'validating request bodies',
    para: 'checking the shape of incoming payloads',
    options: ['zod', 'yup'],
    reason: 'it infers the TypeScript types from the schema, so we do not keep two definitions in sync',
  },
  {
    topic: 'the HTTP client',
    para: 'calling the upstream services',
    options: ['undici', 'axios'],
    reason: 'it ships with Node 20, supports connection pooling and adds no dependency',
  },
  {
    topic: 'date arithmetic',
    para: 'adding days and handling time zones',
    options: ['date-fns', 'luxon'],
    reason: 'it is tree-shakeable and works on plain Date objects we already store',
  },
  {
    topic: 'retries with backoff',
    para: 'trying flaky calls again after a pause',
    options: ['p-retry', 'a hand-written loop'],
    reason: 'it already handles jitter, abort signals and a max retry time',
  },
  {
    topic: 'structured logging',
    para: 'writing the logs as JSON lines',
    options: ['pino', 'winston'],
    reason: 'it is several times faster and its child loggers carry the request id',
  },
  {
    topic: 'the background job queue',
    para: 'running the nightly work off the request path',
    options: ['BullMQ', 'node-cron'],
    reason: 'jobs survive a restart in Redis and failed ones are retried',
  },
  {
    topic: 'caching lookups',
    para: 'keeping hot results around between requests',
    options: ['an in-memory LRU', 'Redis'],
    reason: 'a single instance serves everything, so a network hop buys nothing yet',
  },
];
const errorKinds: Array<(m: Module, r: Rng) => [line: string, para: string]> = [
  (m) => [
    `TypeError: Cannot read properties of undefined (reading '${m.amount}')`,
    `crashed reading a property of something undefined`,
  ],
  (_m, r) => [
    `AssertionError: expected ${r.int(11, 99)} to be ${r.int(2, 9)} // Object.is equality`,
    `got the wrong count back`,
  ],
  () => ['RangeError: Invalid time value', 'choked on a bad date'],
  (_, r) => [`SyntaxError: Unexpected token '}' in JSON at position ${r.int(40, 900)}`, `could not parse some JSON`],
  (m, r) => [
    `Error: ENOENT: no such file or directory, open 'test/fixtures/${m.noun}-${r.int(2, 9)}.json'`,
    'was missing a fixture file',
  ],
  () => ['Error: Test timed out in 5000ms.', 'hung until it hit the timeout'],
];
const smallTalk: Array<[string, string]> = [
  ['brb, grabbing coffee', 'Sure, take your time.'],
  ['lol this codebase is older than my cat', 'Ha — it has held up well for its age.'],
  ['ugh, standup in 5 minutes', 'Good luck! We can pick this up right after.'],
  ['thanks, you are saving my Friday', 'Glad to help — almost there.'],
];

const cap = (word: string): string => word[0]!.toUpperCase() + word.slice(1);
const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const callId = (r: Rng): string =>
  `call_${Array.from({ length: 24 }, () => 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[r.int(0, 61)]).join('')}`;

function helper(r: Rng, m: Module, name: string): string[] {
  const T = cap(m.noun);
  return [
    '',
    `function ${name}${T}(row: ${T}, limit = ${r.int(2, 500)}): number {`,
    `  const value = row.${m.amount} ?? 0;`,
    `  if (value < 0) throw new RangeError(\`negative ${m.amount} on ${m.noun} \${row.id}\`);`,
    ...(r.chance(0.5)
      ? [
          `  // ${m.noun}s imported before the migration have no ${m.field}`,
          `  if (!row.${m.field}) return Math.min(value, limit);`,
        ]
      : []),
    `  return value > limit ? limit : Math.round(value * ${r.pick(['1.0', '0.5', '100', '1000'])}) / ${r.pick(['1', '100', '1000'])};`,
    '}',
  ];
}

function codeFile(r: Rng, m: Module): string {
  const T = cap(m.noun);
  const keep = r.pick([`previous.${m.field} < item.${m.field}`, `previous.${m.amount} < item.${m.amount}`]);
  const body = m.key
    ? [
        `export function ${m.fn}(items: readonly ${T}[], now = Date.now()): Record<string, number> {`,
        '  const totals: Record<string, number> = {};',
        '  for (const item of items) {',
        `    if (now - item.${m.field} > ${m.constName}) continue;`,
        `    const key = item.${m.key} ?? 'unknown';`,
        `    totals[key] = (totals[key] ?? 0) + (item.${m.amount} ?? 0);`,
        '  }',
        '  return totals;',
        '}',
      ]
    : [
        `export function ${m.fn}(items: readonly ${T}[], now = Date.now()): ${T}[] {`,
        '  if (items.length === 0) return [];',
        `  const byId = new Map<string, ${T}>();`,
        '  for (const item of items) {',
        `    if (now - item.${m.field} > ${m.constName}) continue;`,
        '    const previous = byId.get(item.id);',
        `    if (!previous || ${keep}) byId.set(item.id, item);`,
        '  }',
        `  return [...byId.values()].sort((a, b) => a.${m.field} - b.${m.field});`,
        '}',
      ];
  const lines = [
    `import type { ${T} } from '../types.js';`,
    '',
    `/** ${cap(m.noun)} rows older than this are ignored by ${m.fn}. */`,
    `export const ${m.constName} = ${m.constValue.toLocaleString('en-US').replace(/,/g, '_')};`,
    '',
    ...body,
  ];
  for (const name of r.shuffle(helperNames).slice(0, r.int(0, 5))) lines.push(...helper(r, m, name));
  return lines.join('\n');
}

function testRun(r: Rng, m: Module, failure?: [string, string, string]): string {
  const total = r.int(40, 140),
    files = r.int(6, 18),
    file = `test/${m.noun}/${kebab(m.fn)}.test.ts`;
  if (!failure)
    return ` RUN  v1.6.0 /repo\n\n ✓ ${file} (${r.int(4, 12)} tests) ${r.int(8, 90)}ms\n\n Test Files  ${files} passed (${files})\n      Tests  ${total} passed (${total})\n   Duration  ${r.int(1, 9)}.${r.int(10, 99)}s`;
  const [behaviour, line] = failure;
  return [
    ` RUN  v1.6.0 /repo\n`,
    ` ❯ ${file} (${r.int(4, 12)} tests | 1 failed) ${r.int(8, 90)}ms`,
    `   × ${m.fn} > ${behaviour}`,
    `\n⎯⎯⎯ Failed Tests 1 ⎯⎯⎯\n`,
    ` FAIL  ${file} > ${m.fn} > ${behaviour}`,
    line,
    ` ❯ ${m.fn} ${m.path}:${r.int(8, 40)}:${r.int(5, 30)}`,
    ` ❯ ${file}:${r.int(10, 120)}:${r.int(5, 30)}`,
    `\n Test Files  1 failed | ${files - 1} passed (${files})`,
    `      Tests  1 failed | ${total - 1} passed (${total})`,
  ].join('\n');
}

/** Generates one conversation of about 120–250 messages with ~8 planted questions. */
export function generateToolConversation(input: { seed: number }): ToolConversation {
  const r = createRng(input.seed * 7919 + 17);
  const project = r.pick(projects);
  const messages: ToolChatMessage[] = [
    {
      role: 'system',
      content: `You are a coding assistant working in the ${project.name} repository (${project.blurb}, TypeScript, Node 20, vitest). Use the tools to read, search, edit and test code. Keep answers short and show code in fenced blocks.`,
    },
  ];
  const push = (message: ToolChatMessage): number => messages.push(message) - 1;
  const calls = (pairs: Array<[string, Record<string, unknown>, string]>): number[] => {
    const toolCalls = pairs.map(([name, args]) => ({
      id: callId(r),
      type: 'function' as const,
      function: { name, arguments: JSON.stringify(args) },
    }));
    push({ role: 'assistant', content: null, tool_calls: toolCalls });
    return pairs.map(([, , result], i) => push({ role: 'tool', tool_call_id: toolCalls[i]!.id, content: result }));
  };
  const used = new Set<string>();
  const newModule = (): Module => {
    for (;;) {
      const noun = r.pick(project.nouns),
        qual = r.pick(quals),
        fn = `${r.pick(verbs)}${cap(noun)}${qual}`;
      if (used.has(fn)) continue;
      used.add(fn);
      return {
        fn,
        noun,
        qual,
        path: `src/${noun}/${kebab(fn)}.ts`,
        constName: r.pick(consts),
        constValue: r.int(3, 180) * 5000,
        field: r.pick(fields),
        amount: r.pick(amounts),
        ...(r.chance(0.4) ? { key: r.pick(keys) } : {}),
      };
    }
  };
  const codes: Array<{ index: number[]; m: Module[] }> = [],
    failures: Failure[] = [],
    decided: Array<{ index: number; d: Decision }> = [];
  const ends: number[] = [],
    followups: Array<{ askAt: number; index: number }> = [];
  const fail = (m: Module): [string, string, string] => {
    const [line, para] = r.pick(errorKinds)(m, r);
    return [r.pick(behaviours), line, para];
  };
  const target = r.int(120, 235);
  let decisionPool = r.shuffle(decisions);
  while (messages.length < target) {
    const roll = r.next();
    if (roll < 0.1) {
      const [u, a] = r.pick(smallTalk);
      push({ role: 'user', content: u });
      push({ role: 'assistant', content: a });
    } else if (roll < 0.22 && decisionPool.length > 0) {
      const d = decisionPool[0]!;
      decisionPool = decisionPool.slice(1);
      const [a, b] = r.shuffle(d.options);
      push({ role: 'user', content: `Design question before we go on: for ${d.topic}, should we use ${a} or ${b}?` });
      const pick = d.options[0];
      const prose = `I'd go with **${pick}** — ${d.reason}. ${d.options[1]} would work too, but it is one more thing to maintain here.`;
      decided.push({
        index: push({
          role: 'assistant',
          content: `${prose}\n\n\`\`\`md\n- ${d.topic}: ${pick} (not ${d.options[1]})\n\`\`\`\n\nI'll add that line to docs/decisions.md.`,
        }),
        d,
      });
      if (r.chance(0.5)) {
        push({ role: 'user', content: r.pick(['ok, agreed', 'Sounds good, go with that.', 'fine by me']) });
        push({ role: 'assistant', content: 'Noted.' });
      }
    } else if (roll < 0.4) {
      const m = newModule();
      const what = `${m.noun} ${m.qual.toLowerCase()}`;
      push({
        role: 'user',
        content: r.pick([
          `Where do we handle the ${what}? I can't find it.`,
          `How does the ${what} code work? Never looked at it.`,
        ]),
      });
      const matches = [
        { file: m.path, line: 6, text: `export function ${m.fn}(` },
        { file: `test/${m.noun}/${kebab(m.fn)}.test.ts`, line: r.int(3, 9), text: `describe('${m.fn}', () => {` },
      ];
      calls([['search_code', { query: what }, JSON.stringify({ matches }, null, 2)]]);
      codes.push({ index: calls([['read_file', { path: m.path }, codeFile(r, m)]]), m: [m] });
      push({
        role: 'assistant',
        content: `It lives in \`${m.path}\`: \`${m.fn}\` drops stale entries, then ${m.key ? `sums \`${m.amount}\` per key` : 'keeps one per id'}. The helpers below it are small utilities.`,
      });
    } else {
      const m = newModule(),
        parallel = r.chance(0.35) ? newModule() : undefined;
      push({
        role: 'user',
        content: r.pick([
          `The ${m.noun} ${m.qual.toLowerCase()} numbers look off in staging. Can you check ${m.fn}?`,
          `Can you add a guard for a missing ${m.amount} in ${m.path}?`,
          `Customers report duplicate ${m.noun}s; I suspect ${m.fn}. Take a look?`,
          `Please make ${m.fn} skip archived rows${parallel ? ` and check that ${parallel.fn} does the same` : ''}.`,
        ]),
      });
      if (parallel)
        codes.push({
          index: calls([
            ['read_file', { path: m.path }, codeFile(r, m)],
            ['read_file', { path: parallel.path }, codeFile(r, parallel)],
          ]),
          m: [m, parallel],
        });
      else codes.push({ index: calls([['read_file', { path: m.path }, codeFile(r, m)]]), m: [m] });
      const patch = `  for (const item of items) {\n    if (item.archived || item.${m.amount} == null) continue;\n    if (now - item.${m.field} > ${m.constName}) continue;`;
      calls([
        [
          'write_file',
          { path: m.path, content: patch },
          JSON.stringify({ ok: true, path: m.path, bytesWritten: r.int(600, 2400) }),
        ],
      ]);
      const first = r.chance(0.55) ? fail(m) : undefined,
        lingering = r.chance(0.3) ? fail(m) : undefined;
      const [run] = calls([['run_tests', { pattern: `test/${m.noun}` }, testRun(r, m, first ?? lingering)]]);
      if (first) {
        failures.push({ index: run!, fn: m.fn, behaviour: first[0], para: first[2] });
        calls([
          [
            'write_file',
            { path: m.path, content: `${patch}\n    // fixed: ${first[0]}` },
            JSON.stringify({ ok: true, path: m.path, bytesWritten: r.int(600, 2400) }),
          ],
        ]);
      }
      const [last] = first ? calls([['run_tests', { pattern: `test/${m.noun}` }, testRun(r, m, lingering)]]) : [run];
      const status = lingering
        ? `One test still fails (${lingering[0]}); it looks unrelated to this change.`
        : 'All tests pass.';
      push({
        role: 'assistant',
        content: `Done. \`${m.fn}\` now skips archived rows and rows without \`${m.amount}\`:\n\n\`\`\`ts\n${patch}\n\`\`\`\n\n${status}`,
      });
      if (lingering) followups.push({ askAt: messages.length, index: last! });
    }
    ends.push(messages.length);
  }
  const questions: ToolQuestion[] = [];
  // Questions come late enough for the history to exceed the largest budget, and ≥ 30 messages after their evidence.
  const earliest = Math.max(80, Math.floor(messages.length * 0.4));
  const askable = (index: number): number[] => ends.filter((end) => end >= Math.max(index + 30, earliest));
  const askAfter = (index: number): number | undefined => {
    const later = askable(index);
    return later.length ? r.pick(later) : undefined;
  };
  const room = (index: number[]): boolean => askable(Math.max(...index)).length > 0;
  const plant = (
    kind: ToolQuestionKind,
    evidence: number[],
    text: string,
    askAt = askAfter(Math.max(...evidence)),
  ): void => {
    if (askAt !== undefined) questions.push({ kind, text, evidence, askAt });
  };
  for (const { index, m } of r.shuffle(codes.filter((c) => room(c.index))).slice(0, 3)) {
    const [a, b] = m as [Module, Module | undefined];
    const what = `${a.noun} ${a.qual.toLowerCase()}`;
    if (b)
      plant(
        'code-recall',
        index,
        r.pick([
          `How do ${a.fn} and ${b.fn} differ in what they throw away?`,
          'Remind me: which of the two files we read together had the longer staleness cutoff?',
        ]),
      );
    else
      plant(
        'code-recall',
        index,
        r.pick([
          `What was ${a.constName} set to in ${a.fn}?`,
          a.key ? `What does ${a.fn} group the totals by?` : `Which field does ${a.fn} sort its results by?`,
          `Back when we opened the ${what} code, how long was the cutoff before entries get ignored?`,
          a.key
            ? `In the ${what} logic, which number gets added up?`
            : `How does the ${what} logic decide which duplicate to keep?`,
        ]),
      );
  }
  for (const f of r.shuffle(failures.filter((f) => room([f.index]))).slice(0, 2)) {
    plant(
      'error-recall',
      [f.index],
      r.pick([
        `Earlier the "${f.behaviour}" test failed — what was the exact error?`,
        `One test run ${f.para} a while ago. Which test was that?`,
        `What did ${f.fn}'s test complain about before your fix?`,
      ]),
    );
  }
  for (const { index, d } of r.shuffle(decided.filter((d) => room([d.index]))).slice(0, 2)) {
    plant(
      'decision',
      [index],
      r.pick([
        `Which did we go with for ${d.topic} in the end?`,
        `Remind me what you recommended for ${d.para}, and why?`,
      ]),
    );
  }
  for (const f of r.shuffle(followups.filter((f) => f.askAt >= earliest)).slice(0, 2)) {
    plant(
      'recent-followup',
      [f.index],
      r.pick([
        'ok, and now fix that too',
        'Nice. Can you sort out the remaining red one as well?',
        'great — now the other failure please',
      ]),
      f.askAt,
    );
  }
  questions.sort((x, y) => x.askAt - y.askAt);
  return { seed: input.seed, messages, questions };
}

/** The request for a question: the conversation up to `askAt` plus the question as the last user message. */
export function toolQuestionRequest(conversation: ToolConversation, question: ToolQuestion): ToolChatMessage[] {
  return [...conversation.messages.slice(0, question.askAt), { role: 'user', content: question.text }];
}
