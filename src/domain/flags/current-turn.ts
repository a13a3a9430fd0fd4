import { temporaryFlags, type CheckedItem } from './apply-flag-block.js';
import type { FlagStateDoc, TurnRecord } from './flag-state.js';
import type { FlagValue } from './types.js';

/** The newest user message's block, as resolveFlags identifies it. */
export interface NewestBlock {
  id: string;
  key: string;
  items: readonly CheckedItem[];
  notices: readonly string[];
}

/**
 * This turn's temporary flags. Open WebUI chains pipeline filters, each a separate request that
 * receives the previous filter's output, so only the first call of a turn still sees the flag
 * block. That call records the turn in the state (`state.turn`, updated here); later calls whose
 * newest user message has the same id take the flags and notices from that record.
 */
export function currentTurn(
  state: FlagStateDoc,
  newestId: string | undefined,
  block: NewestBlock | undefined,
): { temporary: Record<string, FlagValue>; notices: readonly string[]; changed: boolean } {
  if (block) {
    const record: TurnRecord = {
      id: block.id,
      key: block.key,
      temporary: temporaryFlags(block.items),
      notices: [...block.notices],
    };
    const changed = state.turn?.key !== block.key;
    state.turn = record;
    return { temporary: record.temporary, notices: record.notices, changed };
  }
  if (newestId !== undefined && state.turn?.id === newestId)
    return { temporary: { ...state.turn.temporary }, notices: state.turn.notices, changed: false };
  return { temporary: {}, notices: [], changed: false };
}
