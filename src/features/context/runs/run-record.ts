/**
 * A run record: what one context inlet decided, message by message, and why. Built from the plan the engine returned
 * (dispositions, causes, reasons, scores, the budget) and what compression did; message text only in `preview` mode.
 */
import type { EntryCause, Plan, PlanEntry } from '../../../domain/engine/index.js';
import { contentText } from '../../../core/messages/last-user-message.js';
import type { CompressOutcome } from '../compress/compress-plan.js';
import type { BudgetSource } from './budget-source.js';

/** How much of a run is recorded: `structure` (no message text), `preview` (the first 120 characters), `off`. */
export type InspectMode = 'structure' | 'preview' | 'off';

/** Characters of a message's text a `preview` record keeps. */
export const PREVIEW_CHARS = 120;

/** What happened to one message in the end. */
export type RunDisposition = 'kept' | 'pinned' | 'summarized' | 'dropped';

/** One message of a run. */
export interface RunMessage {
  /** Position in the conversation received (0 = first). */
  index: number;
  role: string;
  tokens: number;
  /** The engine's weight for it (its score against the query, recency and flags included). */
  score: number;
  disposition: RunDisposition;
  cause: EntryCause;
  reason: string;
  /** The message it was merged into (strict role alternation). */
  mergedInto?: number;
  /**
   * The message was sent trimmed (a long tool result or message of an earlier turn cut to the lines the question
   * needs): its size before (`tokens` is what was sent) and how many lines or JSON items were left out.
   */
  trimmed?: RunTrimmed;
  /** `preview` mode only: the first characters of its text. */
  preview?: string;
}

/** How a trimmed message was cut (the plan entry's `trimmed`). */
export type RunTrimmed = NonNullable<PlanEntry['trimmed']>;

/** What the listing shows of a run: everything but its messages and notes. */
export interface RunHead {
  id: string;
  /** Epoch ms when the inlet started. */
  time: number;
  chat: string;
  user: string | null;
  model: string | null;
  inspect: Exclude<InspectMode, 'off'>;
  algorithm: string;
  weighting: string;
  /** Wall time of the inlet's planning (scoring, plan, summaries), ms. */
  durationMs: number;
  budget: {
    limitTokens: number;
    targetTokens: number;
    source: BudgetSource;
    summaryReserveTokens: number;
    cachedPrefixTokens: number;
  };
  totals: {
    messages: number;
    tokensBefore: number;
    tokensAfter: number;
    kept: number;
    pinned: number;
    summarized: number;
    dropped: number;
  };
  overBudget: boolean;
  /** Flags in force (`!target`, `!full`, …) for this turn. */
  flags: Record<string, unknown>;
  summaries: { made: number; calls: number; cacheHits: number };
}

/** A whole run, as the API returns it. */
export interface RunRecord extends RunHead {
  notes: string[];
  messages: RunMessage[];
}

/**
 * A run as stored: its messages in columns (one array per field, repeated words in tables), about a sixth of the
 * JSON of one object per message, so recording stays a small part of the inlet.
 */
export interface StoredRun extends RunHead {
  notes: string[];
  columns: {
    roles: string[];
    /** Per message: its role's position in `roles`. */
    role: number[];
    tokens: number[];
    score: number[];
    /** One letter per message: k(ept), p(inned), s(ummarized), d(ropped). */
    disposition: string;
    causes: EntryCause[];
    cause: number[];
    reasons: string[];
    reason: number[];
    /** Message index → the index it was merged into. */
    merged: Record<string, number>;
    /** Message index → how it was trimmed (absent when no message was). */
    trimmed?: Record<string, RunTrimmed>;
    preview?: string[];
  };
}

/** What `buildRunRecord` reads. */
export interface RunInputs {
  id: string;
  time: number;
  durationMs: number;
  chat: string;
  user: string | null;
  model: string | null;
  inspect: Exclude<InspectMode, 'off'>;
  plan: Plan;
  outcome?: CompressOutcome;
  /** The messages the engine planned (for previews). */
  messages: readonly unknown[];
  flags: Record<string, unknown>;
  budgetSource: BudgetSource;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;

/** The first `PREVIEW_CHARS` characters of a message's text, whitespace collapsed. */
function previewOf(message: unknown): string {
  const content = message && typeof message === 'object' ? (message as { content?: unknown }).content : undefined;
  const text = typeof content === 'string' ? content.slice(0, PREVIEW_CHARS * 4) : contentText(content);
  return text.replace(/\s+/g, ' ').trim().slice(0, PREVIEW_CHARS);
}

const LETTERS: Record<RunDisposition, string> = { kept: 'k', pinned: 'p', summarized: 's', dropped: 'd' };
const FROM_LETTER: Record<string, RunDisposition> = { k: 'kept', p: 'pinned', s: 'summarized', d: 'dropped' };

/** Position of `value` in `table`, added when new (tables stay tiny: a few roles, causes and reasons). */
function slot<T>(table: T[], positions: Map<T, number>, value: T): number {
  let position = positions.get(value);
  if (position === undefined) {
    position = table.push(value) - 1;
    positions.set(value, position);
  }
  return position;
}

/**
 * The record of one run. A message the plan marked `summarize` counts as summarized when the summary block was made,
 * as dropped when it was not (no summarizer answer in time, no room): the record says what the model saw.
 */
export function buildRunRecord(inputs: RunInputs): StoredRun {
  const { plan, outcome } = inputs;
  const summaryMade = (outcome?.summarized ?? 0) > 0;
  const totals = { kept: 0, pinned: 0, summarized: 0, dropped: 0 };
  const columns: StoredRun['columns'] = {
    roles: [],
    role: [],
    tokens: [],
    score: [],
    disposition: '',
    causes: [],
    cause: [],
    reasons: [],
    reason: [],
    merged: {},
    ...(inputs.inspect === 'preview' ? { preview: [] } : {}),
  };
  const tables = {
    roles: new Map<string, number>(),
    causes: new Map<EntryCause, number>(),
    reasons: new Map<string, number>(),
  };
  const letters: string[] = [];
  for (const entry of plan.entries) {
    const disposition: RunDisposition =
      entry.disposition === 'keep'
        ? 'kept'
        : entry.disposition === 'pinned'
          ? 'pinned'
          : entry.disposition === 'summarize' && summaryMade
            ? 'summarized'
            : 'dropped';
    totals[disposition]++;
    letters.push(LETTERS[disposition]);
    const reason =
      entry.disposition === 'summarize' && !summaryMade ? `${entry.reason} (no summary was made)` : entry.reason;
    columns.role.push(slot(columns.roles, tables.roles, entry.role));
    columns.tokens.push(entry.tokens);
    columns.score.push(round(entry.weight));
    columns.cause.push(slot(columns.causes, tables.causes, entry.cause));
    columns.reason.push(slot(columns.reasons, tables.reasons, reason));
    if (entry.mergedInto !== undefined) columns.merged[entry.index] = entry.mergedInto;
    if (entry.trimmed) {
      const { tokensBefore, leftOut, unit } = entry.trimmed;
      (columns.trimmed ??= {})[entry.index] = { tokensBefore, leftOut, unit };
    }
    columns.preview?.push(previewOf(inputs.messages[entry.index]));
  }
  columns.disposition = letters.join('');
  return {
    id: inputs.id,
    time: inputs.time,
    chat: inputs.chat,
    user: inputs.user,
    model: inputs.model,
    inspect: inputs.inspect,
    algorithm: plan.algorithm,
    weighting: plan.weighting,
    durationMs: Math.round(inputs.durationMs * 10) / 10,
    budget: {
      limitTokens: plan.budget.limitTokens,
      targetTokens: plan.budget.targetTokens,
      source: inputs.budgetSource,
      summaryReserveTokens: plan.budget.summaryReserveTokens,
      cachedPrefixTokens: plan.budget.cachedPrefixTokens,
    },
    totals: {
      messages: plan.entries.length,
      tokensBefore: plan.tokensBefore,
      tokensAfter: outcome ? outcome.tokensAfter : plan.tokensAfter,
      ...totals,
    },
    overBudget: plan.overBudget,
    flags: inputs.flags,
    summaries: { made: outcome?.summarized ?? 0, calls: outcome?.calls ?? 0, cacheHits: outcome?.cacheHits ?? 0 },
    notes: [...plan.notes, ...(outcome?.notes ?? [])],
    columns,
  };
}

/** The head of a run (what the listing returns). */
export function headOf(run: StoredRun | RunRecord): RunHead {
  const { notes: _notes, ...rest } = run;
  const head: RunHead & { columns?: unknown; messages?: unknown } = { ...rest };
  delete head.columns;
  delete head.messages;
  return head;
}

/** A stored run with one object per message, as the API returns it. */
export function expandRun(stored: StoredRun): RunRecord {
  const { columns } = stored;
  const messages = columns.role.map((role, index): RunMessage => {
    const merged = columns.merged[index];
    const preview = columns.preview?.[index];
    const trimmed = columns.trimmed?.[index];
    return {
      index,
      role: columns.roles[role] ?? 'unknown',
      tokens: columns.tokens[index] ?? 0,
      score: columns.score[index] ?? 0,
      disposition: FROM_LETTER[columns.disposition[index] ?? 'd'] ?? 'dropped',
      cause: columns.causes[columns.cause[index] ?? 0] ?? 'budget',
      reason: columns.reasons[columns.reason[index] ?? 0] ?? '',
      ...(merged !== undefined ? { mergedInto: merged } : {}),
      ...(trimmed !== undefined ? { trimmed } : {}),
      ...(preview !== undefined ? { preview } : {}),
    };
  });
  return { ...headOf(stored), notes: stored.notes, messages };
}
