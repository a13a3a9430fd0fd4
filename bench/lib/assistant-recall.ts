import { type EngineOptions, LruTokenCache, planContext } from '../../src/domain/engine/index.js';
import { keptIndexes } from './engine-selection.js';
import type { LongMemEvalQuestion } from './longmemeval.js';
import { mean } from './metrics.js';
import { type SelectionInput, selectionTokens } from './selection.js';
import { MessageTokenCounter } from './token-count.js';
import { valvesOptions } from './valves-options.js';

/** One question under one method and budget. */
export interface RecallSample {
  method: string;
  budget: number;
  type: string;
  recall: number;
  sent: number;
}

export interface RecallMethod {
  name: string;
  select: (input: SelectionInput) => number[];
}

const tokenCache = new LruTokenCache(400_000);

/**
 * The context filter's own path: its valve defaults with `max_tokens` = the budget (plus overrides) → engine
 * options → plan (model gpt-4o, real o200k tokens); the indexes of the messages sent in full.
 */
export function engineViaValves(overrides: Partial<EngineOptions> = {}): (input: SelectionInput) => number[] {
  return ({ messages, budget }) => {
    const options = valvesOptions(budget, overrides);
    return keptIndexes(planContext({ messages: [...messages], model: 'gpt-4o', options, tokenCache }).plan);
  };
}

/**
 * One method at one budget on one question: the share of the evidence messages (`evidence`, indexes) it keeps, and
 * the tokens it sends.
 */
export function evidenceRecall(
  method: RecallMethod,
  input: SelectionInput,
  evidence: readonly number[],
): { recall: number; sent: number } {
  const kept = method.select(input);
  const keptSet = new Set(kept);
  const found = evidence.filter((index) => keptSet.has(index)).length;
  return { recall: found / evidence.length, sent: selectionTokens(input.tokens, kept) };
}

/** Evidence recall of every method at every budget on every question (same token counting for all). */
export function assistantRecall(
  questions: readonly LongMemEvalQuestion[],
  methods: readonly RecallMethod[],
  budgets: readonly number[],
  counter = new MessageTokenCounter(),
): RecallSample[] {
  const samples: RecallSample[] = [];
  for (const question of questions) {
    const tokens = counter.messages(question.messages);
    for (const budget of budgets) {
      for (const method of methods) {
        const { recall, sent } = evidenceRecall(
          method,
          { messages: question.messages, tokens, budget },
          question.evidence,
        );
        samples.push({ method: method.name, budget, type: question.type, recall, sent });
      }
    }
  }
  return samples;
}

/** Mean recall of the samples matching a method, and optionally a budget and a question type. */
export function recallOf(samples: readonly RecallSample[], method: string, budget?: number, type?: string): number {
  return mean(
    samples
      .filter(
        (sample) =>
          sample.method === method &&
          (budget === undefined || sample.budget === budget) &&
          (type === undefined || sample.type === type),
      )
      .map((sample) => sample.recall),
  );
}
