/**
 * Trimming long tool results: evidence-line recall and tokens sent, keep-whole (`trimToolResults: false`) against
 * trimmed (the default), at 2k / 8k / 32k tokens, on agent chats built from real tool outputs read on this machine
 * at run time (nothing generated, nothing downloaded):
 *
 * - `read_file /var/log/dpkg.log`: the machine's dpkg log (its last 3,000 lines). Question: when a package was
 *   installed and at which version; evidence: its `status installed <package>:<arch> <version>` line.
 * - `run dpkg -l`: the installed-package list. Question: which version of a package is installed; evidence: its
 *   `ii  <package>` line.
 * - `run apt-cache show <12 packages>`: their package records. Question: what a package depends on; evidence: the
 *   `Depends:` line of its record.
 * - `read_file node_modules/acorn/CHANGELOG.md`: the acorn CHANGELOG shipped in the project's node_modules.
 *   Question: what a release fixed or added; evidence: the first entry under that release's heading.
 *
 * Each chat is the four tool turns (assistant `tool_calls`, the `tool` result, a one-line reply), in that order, then
 * one question about one of them (5 questions per output, chosen at fixed strides through the output). A line counts
 * as recalled when it is sent verbatim in a message. Tokens sent: the plan's `tokensAfter` (gpt-4o, o200k_base).
 *
 * Then the echo loop's effect on follow-up questions: the same chat, answered, then a follow-up whose answer is the
 * line the previous reply used. The previous reply is built from the real evidence line: the line's own specific
 * tokens (what `extractEntities` finds in it: names, numbers, versions, dates, ids), joined into one sentence, never
 * the line itself. The follow-up names nothing of the line: "Quote the exact line of that output your answer came
 * from." Evidence-line recall of the follow-up turn, trimmed, without the echo loop (no stored state) and with it
 * (the outlet's `matchEcho` on the first turn's history and reply, merged into an empty state, read back by the next
 * inlet: `echoBoost`).
 *
 * Last, the plan time of a trimmed turn (budget 8k, every question of every output, token cache warm as on any
 * later turn): with each output's lines, terms and token costs analysed anew, and with them remembered from an
 * earlier turn that asked another question about the same output (by message id, `TrimMemo`), alternately, call by
 * call; medians.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  echoBoost,
  extractEntities,
  LruTokenCache,
  matchEcho,
  mergeEcho,
  messageIds,
  planContext,
} from '../src/domain/engine/index.js';
import type { LooseMessage } from '../src/core/messages/chat-message.js';
import { forgetTrimAnalyses } from '../src/domain/engine/trim/trim-text.js';
import { markdownTable } from './lib/table.js';

interface Source {
  name: string;
  call: { name: string; arguments: string };
  output: string;
  questions: { question: string; evidence: string }[];
}

const QUESTIONS_PER_SOURCE = 5;
const BUDGETS = [2000, 8000, 32000];

/** `count` items at fixed strides through `items`. */
function strided<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, (_, index) => items[Math.floor(((index + 0.5) * items.length) / count)]!);
}

function run(command: string, args: string[]): string {
  return execFileSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, COLUMNS: '160' },
  });
}

function dpkgLog(): Source {
  const lines = readFileSync('/var/log/dpkg.log', 'utf8').trimEnd().split('\n').slice(-3000);
  const installed = lines.filter((line) => / status installed [^ ]+:[^ ]+ /.test(line));
  const seen = new Set<string>();
  const unique = installed.filter((line) => {
    const pkg = line.split(' status installed ')[1]!.split(':')[0]!;
    if (seen.has(pkg)) return false;
    seen.add(pkg);
    return true;
  });
  return {
    name: 'dpkg.log',
    call: { name: 'read_file', arguments: '{"path":"/var/log/dpkg.log"}' },
    output: lines.join('\n'),
    questions: strided(unique, QUESTIONS_PER_SOURCE).map((line) => {
      const pkg = line.split(' status installed ')[1]!.split(':')[0]!;
      return { question: `When was ${pkg} installed, and which version of it?`, evidence: line };
    }),
  };
}

function dpkgList(): Source {
  const output = run('dpkg', ['-l']).trimEnd();
  const rows = output.split('\n').filter((line) => line.startsWith('ii  '));
  return {
    name: 'dpkg -l',
    call: { name: 'run_command', arguments: '{"command":"dpkg -l"}' },
    output,
    questions: strided(rows, QUESTIONS_PER_SOURCE).map((line) => {
      const pkg = line.split(/\s+/)[1]!.split(':')[0]!;
      return { question: `Which version of the ${pkg} package is installed?`, evidence: line };
    }),
  };
}

function aptShow(): Source {
  const rows = run('dpkg', ['-l'])
    .split('\n')
    .filter((line) => line.startsWith('ii  '))
    .map((line) => line.split(/\s+/)[1]!.split(':')[0]!);
  const packages = strided(rows, 12);
  const output = run('apt-cache', ['show', '--no-all-versions', ...packages]).trimEnd();
  const records = output.split('\n\n');
  const questions: Source['questions'] = [];
  for (const record of records) {
    const pkg = /^Package: (.+)$/m.exec(record)?.[1];
    const depends = /^Depends: .+$/m.exec(record)?.[0];
    if (pkg && depends && !questions.some((item) => item.evidence === depends))
      questions.push({ question: `What does the ${pkg} package depend on?`, evidence: depends });
  }
  return {
    name: 'apt-cache show',
    call: { name: 'run_command', arguments: JSON.stringify({ command: `apt-cache show ${packages.join(' ')}` }) },
    output,
    questions: strided(questions, QUESTIONS_PER_SOURCE),
  };
}

function changelog(): Source {
  const file = path.resolve('node_modules/acorn/CHANGELOG.md');
  const output = readFileSync(file, 'utf8').trimEnd();
  const lines = output.split('\n');
  const releases: Source['questions'] = [];
  lines.forEach((line, index) => {
    const version = /^## (\d+\.\d+\.\d+)/.exec(line)?.[1];
    if (!version) return;
    const entry = lines.slice(index + 1, index + 12).find((next) => next.trim() && !next.startsWith('#'));
    if (entry) releases.push({ question: `What did acorn ${version} fix or add?`, evidence: entry });
  });
  return {
    name: 'acorn CHANGELOG.md',
    call: { name: 'read_file', arguments: JSON.stringify({ path: 'node_modules/acorn/CHANGELOG.md' }) },
    output,
    questions: strided(releases, QUESTIONS_PER_SOURCE),
  };
}

function chat(sources: readonly Source[], question: string): unknown[] {
  const messages: unknown[] = [{ role: 'system', content: 'You are a helpful assistant with tools on this server.' }];
  sources.forEach((source, index) => {
    const id = `call_${index + 1}`;
    messages.push(
      { role: 'user', content: `Please ${source.call.name.replace('_', ' ')}: ${source.call.arguments}` },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id, type: 'function', function: source.call }],
      },
      { role: 'tool', tool_call_id: id, content: source.output },
      { role: 'assistant', content: `Done: ${source.name} is above.` },
    );
  });
  messages.push({ role: 'user', content: question });
  return messages;
}

const sentText = (messages: readonly unknown[]) =>
  messages.map((message) => String((message as { content?: unknown }).content ?? '')).join('\n');

const sources = [dpkgLog(), dpkgList(), aptShow(), changelog()];
const cache = new LruTokenCache(10_000);
const rows: string[][] = [];
const outputs = sources.map((source) => {
  const plan = planContext({ messages: chat([source], 'x'), model: 'gpt-4o', tokenCache: cache, options: {} }).plan;
  return `${source.name}: ${source.output.split('\n').length.toLocaleString('en-US')} lines, ${plan.entries[3]!.tokens.toLocaleString('en-US')} tokens`;
});
console.log(`Tool outputs: ${outputs.join('; ')}.`);
for (const budget of BUDGETS) {
  for (const mode of ['keep whole', 'trimmed'] as const) {
    let found = 0;
    let total = 0;
    let tokens = 0;
    let runs = 0;
    let over = 0;
    const perSource: string[] = [];
    let started = performance.now();
    let ms = 0;
    for (const source of sources) {
      let sourceFound = 0;
      for (const { question, evidence } of source.questions) {
        started = performance.now();
        const { messages, plan } = planContext({
          messages: chat(sources, question),
          model: 'gpt-4o',
          tokenCache: cache,
          options: { maxTokens: budget, trimToolResults: mode === 'trimmed' },
        });
        ms += performance.now() - started;
        const hit = sentText(messages).includes(evidence);
        found += hit ? 1 : 0;
        sourceFound += hit ? 1 : 0;
        total += 1;
        tokens += plan.tokensAfter;
        runs += 1;
        if (plan.tokensAfter > budget) over += 1;
      }
      perSource.push(`${sourceFound}/${source.questions.length}`);
    }
    rows.push([
      `${budget / 1000}k`,
      mode,
      `${((100 * found) / total).toFixed(1)} % (${found}/${total})`,
      perSource.join(' · '),
      Math.round(tokens / runs).toLocaleString('en-US'),
      String(over),
      `${(ms / runs).toFixed(1)} ms`,
    ]);
  }
}
console.log(
  markdownTable(
    [
      'budget',
      'tool results',
      'evidence-line recall',
      'per output (dpkg.log · dpkg -l · apt-cache · CHANGELOG)',
      'mean tokens sent',
      'over budget',
      'mean plan time',
    ],
    rows,
  ),
);

const FOLLOW_UP = 'Quote the exact line of that output your answer came from.';

/** The previous reply, built from the evidence line: its specific tokens in one sentence, not the line itself. */
function replyFrom(evidence: string): string {
  const entities = extractEntities(evidence);
  return entities.length > 0 ? `From the output: ${entities.join(', ')}.` : 'It is in the output above.';
}

const followRows: string[][] = [];
for (const budget of BUDGETS) {
  for (const mode of ['trimmed, no echo', 'trimmed, echo loop'] as const) {
    let found = 0;
    let total = 0;
    let tokens = 0;
    let over = 0;
    const perSource: string[] = [];
    for (const source of sources) {
      let sourceFound = 0;
      for (const { question, evidence } of source.questions) {
        const first = chat(sources, question);
        const reply = { role: 'assistant', content: replyFrom(evidence) };
        const messages = [...first, reply, { role: 'user', content: FOLLOW_UP }];
        const turn = first.filter((message) => (message as { role: string }).role === 'user').length;
        const echo =
          mode === 'trimmed, echo loop'
            ? echoBoost(
                mergeEcho(undefined, matchEcho(first, messageIds(first as LooseMessage[]), reply.content), turn),
                turn + 1,
              )
            : undefined;
        const { messages: sent, plan } = planContext({
          messages,
          model: 'gpt-4o',
          tokenCache: cache,
          options: { maxTokens: budget },
          echo,
        });
        const hit = sentText(sent).includes(evidence);
        found += hit ? 1 : 0;
        sourceFound += hit ? 1 : 0;
        total += 1;
        tokens += plan.tokensAfter;
        if (plan.tokensAfter > budget) over += 1;
      }
      perSource.push(`${sourceFound}/${source.questions.length}`);
    }
    followRows.push([
      `${budget / 1000}k`,
      mode,
      `${((100 * found) / total).toFixed(1)} % (${found}/${total})`,
      perSource.join(' · '),
      Math.round(tokens / total).toLocaleString('en-US'),
      String(over),
    ]);
  }
}
console.log(`\nFollow-up questions (the answer is the line the previous reply used; the follow-up: "${FOLLOW_UP}"):`);
console.log(
  markdownTable(
    [
      'budget',
      'follow-up turn',
      'evidence-line recall',
      'per output (dpkg.log · dpkg -l · apt-cache · CHANGELOG)',
      'mean tokens sent',
      'over budget',
    ],
    followRows,
  ),
);

const ROUNDS = 5;
const times = { anew: [] as number[], remembered: [] as number[] };
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (let round = 0; round < ROUNDS; round += 1) {
  for (const source of sources) {
    source.questions.forEach(({ question }, position) => {
      // The turn before asked another question about the same output.
      const before = source.questions[(position + 1) % source.questions.length]!.question;
      for (const mode of round % 2 === 0 ? (['anew', 'remembered'] as const) : (['remembered', 'anew'] as const)) {
        const messages = chat(sources, `${question} (${mode} ${round})`);
        if (mode === 'anew') forgetTrimAnalyses();
        else
          planContext({
            messages: chat(sources, `${before} (${round})`),
            model: 'gpt-4o',
            tokenCache: cache,
            options: { maxTokens: 8000 },
          });
        const started = performance.now();
        planContext({ messages, model: 'gpt-4o', tokenCache: cache, options: { maxTokens: 8000 } });
        times[mode].push(performance.now() - started);
      }
    });
  }
}
console.log(
  `\nPlan time of a trimmed turn at 8k (${times.anew.length} plans each, alternately): outputs analysed anew ${median(times.anew).toFixed(1)} ms, remembered from an earlier turn ${median(times.remembered).toFixed(1)} ms (medians).`,
);
