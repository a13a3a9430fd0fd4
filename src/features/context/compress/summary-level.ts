/** Compression levels: one turn (a user message with its answer and tool exchanges), a segment of turns, or all older history. */
export type SummaryLevel = 'turn' | 'segment' | 'conversation';

/** Which levels are allowed and the thresholds between them. */
export interface LevelPolicy {
  enabled: Record<SummaryLevel, boolean>;
  /** At most this many summarized messages → per-turn summaries. */
  turnMaxMessages: number;
  /** At least this share of the chat history summarized → one whole-conversation summary. */
  conversationShare: number;
}

/** Default thresholds: up to 6 messages per turn summaries; 60% of the chat or more → one summary. */
export const DEFAULT_LEVEL_POLICY: LevelPolicy = {
  enabled: { turn: true, segment: true, conversation: true },
  turnMaxMessages: 6,
  conversationShare: 0.6,
};

const ORDER: SummaryLevel[] = ['turn', 'segment', 'conversation'];

/**
 * The level for how much must be saved: few messages → `turn`, most of the chat →
 * `conversation`, otherwise `segment`; a disabled level falls to the nearest enabled one
 * (coarser first). Undefined when no level is enabled or nothing is summarized.
 */
export function chooseLevel(
  summarized: number,
  chatMessages: number,
  policy: LevelPolicy = DEFAULT_LEVEL_POLICY,
): SummaryLevel | undefined {
  if (summarized <= 0) return undefined;
  let wanted: SummaryLevel = 'segment';
  if (chatMessages > 0 && summarized / chatMessages >= policy.conversationShare) wanted = 'conversation';
  else if (summarized <= policy.turnMaxMessages) wanted = 'turn';
  const at = ORDER.indexOf(wanted);
  const candidates = [at, at + 1, at - 1, at + 2, at - 2].filter((index) => index >= 0 && index < ORDER.length);
  for (const index of candidates) if (policy.enabled[ORDER[index]!]) return ORDER[index];
  return undefined;
}
