/**
 * Summarizing vs dropping: evidence recall and tokens on the seeded conversations of
 * `conversation-generator.ts`, plus inlet latency with and without ahead-of-time summaries.
 * Run alone: `node --import tsx bench/lib/summarizing-recall.ts`; the lead calls the exports.
 */
import { pathToFileURL } from 'node:url';
import { LruTokenCache, planContext, type Summarizer } from '../../src/domain/engine/index.js';
import { compressSettings } from '../../src/features/context/compress/compress-settings.js';
import { nextTurnMessages } from '../../src/features/context/compress/next-turn.js';
import { planAndCompress } from '../../src/features/context/compress/plan-and-compress.js';
import { SummaryCache, type CacheStore } from '../../src/features/context/compress/summary-cache.js';
import { generateConversation, questionRequest, type EvidenceRef } from './conversation-generator.js';
import { ExtractiveSummarizer } from './extractive-summarizer.js';
import { mean, quantile } from './metrics.js';
import { markdownTable, percent } from './table.js';

/** An in-process stand-in for the state store (benchmarks only). */
class MemoryCacheStore implements CacheStore {
  private readonly map = new Map<string, unknown>();
  async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    return keys.map((key) => this.map.get(key) as T | undefined);
  }
  async setMany(entries: readonly { key: string; value: unknown }[]): Promise<void> {
    for (const entry of entries) this.map.set(entry.key, entry.value);
  }
}

/** A summarizer that counts its calls and waits `delayMs` per call (simulated model latency). */
class CountingSummarizer implements Summarizer {
  calls = 0;
  constructor(
    private readonly inner: Summarizer,
    private readonly delayMs = 0,
  ) {}
  async summarize(request: Parameters<Summarizer['summarize']>[0]): Promise<string> {
    this.calls += 1;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return this.inner.summarize(request);
  }
}

/** One budget's means over all questions. */
export interface SummarizingRecallRow {
  budget: number;
  recallDrop: number;
  recallSummarize: number;
  tokensDrop: number;
  tokensSummarize: number;
  /** Share of the full history's tokens not sent, summarizing configuration. */
  savedSummarize: number;
  summaryTokens: number;
}

/** Evidence counts as recalled when its message is kept or its fact text survives in the summary block. */
function recall(evidence: readonly EvidenceRef[], kept: ReadonlySet<number>, block: string): number {
  if (evidence.length === 0) return 1;
  return (
    evidence.filter((ref) => kept.has(ref.index) || block.toLowerCase().includes(ref.contains.toLowerCase())).length /
    evidence.length
  );
}

const keptOf = (entries: ReadonlyArray<{ index: number; disposition: string }>) =>
  new Set(
    entries
      .filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned')
      .map((entry) => entry.index),
  );

/** Recall and tokens of dropping vs summarizing (extractive summarizer, ratio 0.3, facts appended) per budget. */
export async function summarizingRecall(
  options: { conversations?: number; budgets?: number[] } = {},
): Promise<SummarizingRecallRow[]> {
  const budgets = options.budgets ?? [1000, 2000, 4000, 8000];
  const tokenCache = new LruTokenCache(200_000);
  const samples = new Map<number, Array<Omit<SummarizingRecallRow, 'budget'>>>(budgets.map((budget) => [budget, []]));
  const compression = {
    summarizer: new ExtractiveSummarizer(),
    cache: new SummaryCache(new MemoryCacheStore(), 0),
    settings: compressSettings({ model: 'extractive' }),
  };
  for (let seed = 1; seed <= (options.conversations ?? 10); seed++) {
    const conversation = generateConversation({ seed });
    for (const question of conversation.questions) {
      const messages = questionRequest(conversation, question);
      for (const budget of budgets) {
        const dropped = planContext({ messages, options: { maxTokens: budget }, tokenCache }).plan;
        const summarized = await planAndCompress(
          { messages, options: { maxTokens: budget, summarize: true }, tokenCache },
          compression,
        );
        const outcome = summarized.outcome;
        const after = outcome ? outcome.tokensAfter : summarized.result.plan.tokensAfter;
        samples.get(budget)!.push({
          recallDrop: recall(question.evidence, keptOf(dropped.entries), ''),
          recallSummarize: recall(
            question.evidence,
            keptOf(summarized.result.plan.entries),
            outcome?.block?.content ?? '',
          ),
          tokensDrop: dropped.tokensAfter,
          tokensSummarize: after,
          savedSummarize: 1 - after / summarized.result.plan.tokensBefore,
          summaryTokens: outcome?.blockTokens ?? 0,
        });
      }
    }
  }
  return budgets.map((budget) => {
    const rows = samples.get(budget)!;
    const avg = (key: keyof Omit<SummarizingRecallRow, 'budget'>) => mean(rows.map((row) => row[key]));
    return {
      budget,
      recallDrop: avg('recallDrop'),
      recallSummarize: avg('recallSummarize'),
      tokensDrop: avg('tokensDrop'),
      tokensSummarize: avg('tokensSummarize'),
      savedSummarize: avg('savedSummarize'),
      summaryTokens: avg('summaryTokens'),
    };
  });
}

/** Inlet latency (ms) over consecutive turns of one chat, with summaries prepared ahead of time or not. */
export async function inletLatency(options: {
  seed?: number;
  turns?: number;
  budget?: number;
  delayMs?: number;
  aheadOfTime: boolean;
}): Promise<{ p50: number; p95: number; callsPerInlet: number }> {
  const { messages } = generateConversation({ seed: options.seed ?? 1 });
  const summarizer = new CountingSummarizer(new ExtractiveSummarizer(), options.delayMs ?? 300);
  const compression = {
    summarizer,
    cache: new SummaryCache(new MemoryCacheStore(), 0),
    settings: compressSettings({ model: 'extractive' }),
  };
  const tokenCache = new LruTokenCache(200_000);
  const plan = (history: unknown[], warm = false) =>
    planAndCompress(
      { messages: history, options: { maxTokens: options.budget ?? 2000, summarize: true }, tokenCache },
      { ...compression, settings: { ...compression.settings, warm } },
    );
  const ends = messages
    .map((_message, index) => index)
    .filter((index) => messages[index]!.role === 'user')
    .slice(-(options.turns ?? 20));
  const latencies: number[] = [];
  let inletCalls = 0;
  for (const end of ends) {
    const history = messages.slice(0, end + 1);
    const before = summarizer.calls;
    const started = performance.now();
    await plan(history);
    latencies.push(performance.now() - started);
    inletCalls += summarizer.calls - before;
    if (options.aheadOfTime) await plan(nextTurnMessages(messages.slice(0, end + 2)), true); // the outlet's background job, untimed
  }
  return { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), callsPerInlet: inletCalls / ends.length };
}

/** Prints both tables. */
export async function printSummarizingRecall(): Promise<void> {
  const rows = await summarizingRecall();
  console.log(
    '## Summarizing vs dropping (extractive summarizer, ratio 0.3; evidence recalled = kept or its fact text in the summary)\n',
  );
  console.log(
    markdownTable(
      [
        'budget',
        'recall drop',
        'recall summarize',
        'tokens drop',
        'tokens summarize',
        'history not sent',
        'summary block',
      ],
      rows.map((row) => [
        String(row.budget),
        percent(row.recallDrop),
        percent(row.recallSummarize),
        row.tokensDrop.toFixed(0),
        row.tokensSummarize.toFixed(0),
        percent(row.savedSummarize),
        row.summaryTokens.toFixed(0),
      ]),
    ),
  );
  console.log('\n## Inlet latency, 20 consecutive turns, 2k budget, simulated model latency 300 ms per summary call\n');
  const without = await inletLatency({ aheadOfTime: false });
  const ahead = await inletLatency({ aheadOfTime: true });
  console.log(
    markdownTable(
      ['ahead of time', 'p50 ms', 'p95 ms', 'model calls per inlet'],
      [
        ['off', without.p50.toFixed(1), without.p95.toFixed(1), without.callsPerInlet.toFixed(2)],
        ['on', ahead.p50.toFixed(1), ahead.p95.toFixed(1), ahead.callsPerInlet.toFixed(2)],
      ],
    ),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await printSummarizingRecall();
