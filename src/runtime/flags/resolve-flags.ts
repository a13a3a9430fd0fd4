import { messageIds } from '../../domain/engine/message-id.js';
import type { FilterBody, PipelineUser } from '../../core/messages/request.js';
import type { StateStore } from '../../state/types.js';
import type { Logger } from '../../core/util/logger.js';
import { createActiveFlags } from '../../domain/flags/active-flags.js';
import { applyBlock, appliedKey, checkItems, type CheckedItem } from '../../domain/flags/apply-flag-block.js';
import { chatKey } from '../../domain/flags/chat-key.js';
import { currentTurn } from '../../domain/flags/current-turn.js';
import type { FlagRegistry } from '../../domain/flags/flag-registry.js';
import { cloneFlagState, emptyFlagState, type FlagStateDoc } from '../../domain/flags/flag-state.js';
import { FLAG_STORE_TIMEOUT_MS, readFlagState, writeFlagState, type FlagStateRead } from './flag-store.js';
import { parseDefaultFlags } from '../../domain/flags/parse-default-flags.js';
import { newestUserIndex, stripFlagBlocks } from '../../domain/flags/strip-flag-blocks.js';
import type { ActiveFlags } from '../../domain/flags/types.js';
import type { Hook } from '../../core/messages/hooks.js';

/** Options of resolveFlags. */
export interface ResolveFlagsOptions {
  body: FilterBody;
  user: PipelineUser | null;
  registry: FlagRegistry;
  /** The host's flags namespace (a ScopedState); one JSON document per chat key. */
  store: StateStore;
  hook: Hook;
  /** TTL of a chat's flag state; refreshed on write. 0 = no expiry. */
  ttlMs: number;
  /** The user's default flag block from user valves, e.g. `+nosum,recent=6`. */
  defaults?: string;
  logger: Logger;
  /** Upper bound of each store call (default 1 s); past it the flags are replayed. */
  timeoutMs?: number;
  /** Clock (tests). */
  now?: () => number;
}

/** A user message's block with its stable id and validated items. */
interface IdentifiedBlock {
  index: number;
  id: string;
  /** The id plus a digest of the block, as remembered in `applied`. */
  key: string;
  items: CheckedItem[];
  notices: string[];
}

/** Each compare-and-set round lets at least one writer through, so N concurrent writers need N rounds. */
const MAX_WRITE_ATTEMPTS = 8;

/** Fold the not-yet-applied blocks (oldest first) into a copy of the stored state, then read this turn. */
function fold(
  read: FlagStateRead,
  blocks: readonly IdentifiedBlock[],
  newest: number,
  newestId: string | undefined,
  foldBlocks: boolean,
) {
  const state: FlagStateDoc = read.doc ? cloneFlagState(read.doc) : emptyFlagState();
  const notices: string[] = [];
  let applied = 0;
  let replayedOlder = 0;
  for (const block of foldBlocks ? blocks : []) {
    if (state.applied.includes(block.key)) continue;
    applyBlock(state, block.items, block.id, block.key);
    notices.push(...block.notices);
    applied++;
    if (block.index !== newest) replayedOlder++;
  }
  const turn = currentTurn(
    state,
    newestId,
    blocks.find((block) => block.index === newest),
  );
  return { state, notices, applied, replayedOlder, turn };
}

/**
 * Resolve the flags of one request: strip every known flag block from the user messages, apply
 * each message's block once to the chat's stored state (replaying the history when the store has
 * nothing or is down), and take this turn's temporary flags from the newest user message (or from
 * the turn record when an earlier filter of the chain already stripped it). On the outlet nothing
 * is written. Never throws because of the store.
 */
export async function resolveFlags(options: ResolveFlagsOptions): Promise<{ flags: ActiveFlags; body: FilterBody }> {
  const { body, registry, store, logger } = options;
  const timeoutMs = options.timeoutMs ?? FLAG_STORE_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const original = Array.isArray(body.messages) ? body.messages : [];
  const stripped = stripFlagBlocks(original, (key) => registry.has(key));
  const ids = messageIds(stripped.messages.map((message) => (message && typeof message === 'object' ? message : {})));
  const blocks: IdentifiedBlock[] = stripped.blocks.map(({ index, block }) => {
    const id = ids[index] ?? String(index);
    return { index, id, key: appliedKey(id, block.items), ...checkItems(block.items, registry) };
  });
  const newest = newestUserIndex(stripped.messages);
  const newestId = newest >= 0 ? ids[newest] : undefined;
  // Keyed on the stripped history: a later filter in the chain only ever sees stripped messages.
  const key = chatKey(Array.isArray(body.messages) ? { ...body, messages: stripped.messages } : body, options.user);
  const defaults = parseDefaultFlags(options.defaults, registry);

  let read = await readFlagState(store, key, { timeoutMs, logger });
  // On the outlet a stored state already holds everything the inlet applied: only replay without one.
  let result = fold(read, blocks, newest, newestId, options.hook === 'inlet' || !read.doc);
  for (let attempt = 1; options.hook === 'inlet' && read.reachable && attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
    const stale = read.doc !== undefined && options.ttlMs > 0 && now() - read.doc.updatedAt > options.ttlMs / 4;
    if (result.applied === 0 && !result.turn.changed && !stale) break;
    const outcome = await writeFlagState(
      store,
      key,
      read.raw,
      { ...result.state, updatedAt: now() },
      { ttlMs: options.ttlMs, timeoutMs, logger },
    );
    if (outcome !== 'conflict') break;
    read = await readFlagState(store, key, { timeoutMs, logger });
    result = fold(read, blocks, newest, newestId, true);
  }

  const notices = [...new Set([...defaults.notices, ...result.notices, ...result.turn.notices])];
  const flags = createActiveFlags({
    chatKey: key,
    persistent: result.state.persistent,
    temporary: result.turn.temporary,
    defaults: defaults.values,
    cleared: result.state.cleared,
    marks: result.state.marks,
    notices,
    source: read.doc ? 'store' : result.replayedOlder > 0 ? 'replay' : 'none',
  });
  return { flags, body: Array.isArray(body.messages) ? { ...body, messages: stripped.messages } : { ...body } };
}
