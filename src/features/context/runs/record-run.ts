/**
 * The context filter's side of the run inspector: builds the record of an inlet's plan and stores it (a store outage
 * is logged, never fails the inlet), and the admin's link to it.
 */
import type { ActiveFlags } from '../../../domain/flags/types.js';
import type { PipelineUser } from '../../../runtime/host/types.js';
import type { CompressedContext } from '../compress/plan-and-compress.js';
import type { ContextUserValves, ContextValves } from '../context-valves.js';
import { budgetSource } from './budget-source.js';
import { buildRunRecord } from './run-record.js';
import { newRunId, RUN_ID, type RunStore } from './run-store.js';

/** What one inlet hands to `recordRun`. */
export interface RunContext {
  runs: RunStore | undefined;
  valves: ContextValves;
  userValves: ContextUserValves;
  flags: ActiveFlags;
  user: PipelineUser | null;
  model: string | undefined;
  messages: readonly unknown[];
  context: CompressedContext;
  /** Epoch ms when the inlet started, and its planning time in ms. */
  started: number;
  durationMs: number;
}

/**
 * Records the run (unless `inspect` is off or nothing provides the store) and returns its id. The record is built
 * now and handed to the run store's buffer, so the reply never waits for the store; reads write the buffer first,
 * so a run can be read as soon as its inlet returns.
 */
export function recordRun(run: RunContext): string | undefined {
  const { valves, runs } = run;
  if (!runs || valves.inspect === 'off') return undefined;
  const { plan } = run.context.result;
  // The plan's id (the inlet gives it one of newRunId's) is the id its log lines carry.
  const id = RUN_ID.test(plan.runId) ? plan.runId : newRunId(run.started);
  const record = buildRunRecord({
    id,
    time: run.started,
    durationMs: run.durationMs,
    // Open WebUI's chat id (`chat:<id>` keys); a chat without one keeps its derived key.
    chat: run.flags.chatKey.startsWith('chat:') ? run.flags.chatKey.slice('chat:'.length) : run.flags.chatKey,
    user: typeof run.user?.id === 'string' ? run.user.id : null,
    model: run.model ?? null,
    inspect: valves.inspect,
    plan,
    outcome: run.context.outcome,
    messages: run.messages,
    flags: { ...run.flags.effective },
    budgetSource: budgetSource(plan.budget, valves, run.userValves, run.flags),
  });
  const retention = {
    perChat: valves.inspect_runs_per_chat,
    max: valves.inspect_max_runs,
    ttlMs: valves.inspect_ttl_hours * 3_600_000,
  };
  runs.record(record, retention);
  return id;
}

/** The admin's link to a run (`inspect_url` set, the user an admin), else undefined. */
export function runLink(valves: Pick<ContextValves, 'inspect_url'>, user: PipelineUser | null, id: string | undefined) {
  const base = valves.inspect_url.trim();
  if (!base || !id || user?.role !== 'admin') return undefined;
  return `${base.replace(/\/+$/, '')}/dashboard#runs/${id}`;
}
