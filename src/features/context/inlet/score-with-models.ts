import type { ChatMessage } from '../../../core/messages/chat-message.js';
import { lastUserText } from '../../../core/messages/last-user-message.js';
import { messageIds, type PlanInput, planContext } from '../../../domain/engine/index.js';
import type { LlmClient } from '../../../domain/llm/llm-client.js';
import type { ContextHookArgs } from '../context-hook-args.js';
import { scorersFor } from '../compress/context-compression.js';
import { externalScores } from '../compress/scoring/external-scores.js';

/** Which model scorers ran and how many failed (for the log line). */
export interface ScoringReport {
  used: string[];
  failed: number;
}

/**
 * Model-assisted scoring (embeddings, LLM labels), only when a probe plan is over budget: the scores are blended
 * into `input` (composite weighting); a failed scorer leaves keyword scoring in its place.
 */
export async function scoreWithModels(
  input: PlanInput,
  messages: ChatMessage[],
  client: LlmClient | undefined,
  args: Pick<ContextHookArgs, 'valves' | 'state' | 'logger' | 'signal'>,
  timeoutMs: number,
): Promise<ScoringReport | undefined> {
  const { valves, state, logger, signal } = args;
  if (!client || valves.scoring === 'none') return undefined;
  const probe = planContext(input).plan;
  if (!(probe.budget.targetTokens > 0 && probe.tokensBefore > probe.budget.targetTokens)) return undefined;
  const scored = await externalScores({
    scorers: scorersFor(client, valves, state),
    messages,
    ids: messageIds(messages),
    query: lastUserText(messages) ?? '',
    timeoutMs,
    signal,
  });
  if (scored.failed.length)
    logger.warn({ failed: scored.failed }, 'model-assisted scoring failed; keyword scoring used for it');
  if (scored.scores)
    input.options = { ...input.options, weighting: 'composite', externalWeight: valves.scoring_weight };
  input.externalScores = scored.scores;
  return { used: scored.used, failed: scored.failed.length };
}
