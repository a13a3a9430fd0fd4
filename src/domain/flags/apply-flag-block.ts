import { createHash } from 'node:crypto';
import type { FlagRegistry, RegisteredFlag } from './flag-registry.js';
import type { FlagItem } from './parse-flag-block.js';
import type { FlagStateDoc } from './flag-state.js';
import type { FlagValue, MessageMarks } from './types.js';
import { splitLabels, validateFlagValue } from './validate-flag-value.js';

/** A flag item whose key is known and whose value passed validation. */
export interface CheckedItem {
  op: FlagItem['op'];
  key: string;
  spec: RegisteredFlag;
  /** The validated value; for `remove` items the raw value (tag labels) or `true`. */
  value: FlagValue;
}

/**
 * What `applied` remembers for a block: the message id plus a digest of the block. Ids are
 * computed on stripped text, so an edit that only changes the flags (`!+nosum hi` to
 * `!-nosum hi`) keeps the id; the digest makes the edited block count as new.
 */
export function appliedKey(messageId: string, items: readonly FlagItem[]): string {
  const canonical = JSON.stringify(items.map((item) => [item.op, item.key, item.value ?? null]));
  return `${messageId}#${createHash('sha256').update(canonical).digest('base64url').slice(0, 8)}`;
}

/** Validate every item of a block; rejected items become notices instead of being applied. */
export function checkItems(
  items: readonly FlagItem[],
  registry: FlagRegistry,
): { items: CheckedItem[]; notices: string[] } {
  const checked: CheckedItem[] = [];
  const notices: string[] = [];
  for (const item of items) {
    const spec = registry.get(item.key);
    if (!spec) {
      notices.push(`Flag !${item.raw} ignored: unknown flag "${item.key}"`);
      continue;
    }
    if (item.op === 'remove') {
      checked.push({ op: item.op, key: item.key, spec, value: item.value ?? true });
      continue;
    }
    const result = validateFlagValue(spec, item.value);
    if (result.ok) checked.push({ op: item.op, key: item.key, spec, value: result.value });
    else notices.push(`Flag !${item.raw} ignored: ${result.reason}`);
  }
  return { items: checked, notices };
}

function applyMark(marks: Record<string, MessageMarks>, messageId: string, item: CheckedItem): void {
  const mark: MessageMarks = { ...marks[messageId] };
  const on = item.op !== 'remove';
  if (item.key === 'pin') {
    if (on && item.value === true) mark.pinned = true;
    else delete mark.pinned;
  } else if (item.key === 'tag') {
    const labels = splitLabels(item.value);
    const kept = on ? labels : item.value === true ? [] : (mark.tags ?? []).filter((tag) => !labels.includes(tag));
    if (kept.length > 0) mark.tags = kept;
    else delete mark.tags;
  } else {
    const flags = { ...mark.flags };
    if (on) flags[item.key] = item.value;
    else delete flags[item.key];
    if (Object.keys(flags).length > 0) mark.flags = flags;
    else delete mark.flags;
  }
  if (Object.keys(mark).length > 0) marks[messageId] = mark;
  else delete marks[messageId];
}

/**
 * Apply one message's block to the chat state, in the order written (`!+pin,-pin` = no pin):
 * `+key` / `-key` change the persistent flags; message-scoped flags (pin, tag, ...) in any form
 * mark the carrying message, so `!pin` and `!tag` stick to the message that carried them. Records `appliedKey` (see appliedKey()) as applied. Mutates `state`.
 */
export function applyBlock(
  state: FlagStateDoc,
  items: readonly CheckedItem[],
  messageId: string,
  appliedKey: string,
): void {
  for (const item of items) {
    if (item.spec.scope === 'message') applyMark(state.marks, messageId, item);
    else if (item.op === 'add') {
      state.persistent[item.key] = item.value;
      state.cleared = state.cleared.filter((key) => key !== item.key);
    } else if (item.op === 'remove') {
      delete state.persistent[item.key];
      if (!state.cleared.includes(item.key)) state.cleared.push(item.key);
    }
  }
  if (!state.applied.includes(appliedKey)) state.applied.push(appliedKey);
}

/** This turn's temporary flags from the newest user message's block (turn-scoped `!key` items; last wins). */
export function temporaryFlags(items: readonly CheckedItem[]): Record<string, FlagValue> {
  const temporary: Record<string, FlagValue> = {};
  for (const item of items) if (item.op === 'set' && item.spec.scope !== 'message') temporary[item.key] = item.value;
  return temporary;
}
