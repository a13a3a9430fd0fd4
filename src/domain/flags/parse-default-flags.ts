import { checkItems } from './apply-flag-block.js';
import type { FlagRegistry } from './flag-registry.js';
import { parseFlagBlock } from './parse-flag-block.js';
import type { FlagValue } from './types.js';

/**
 * Read a user's default flag block (context filter user valve, e.g. `+nosum,recent=6`; the
 * leading `!` and `+` signs are optional). Every item is a default for the chat, applied under its
 * persistent flags. Unknown keys, bad values, message-scoped flags and `-key` items are skipped
 * with a notice rather than failing the request.
 */
export function parseDefaultFlags(
  text: string | undefined,
  registry: FlagRegistry,
): { values: Record<string, FlagValue>; notices: string[] } {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return { values: {}, notices: [] };
  const block = parseFlagBlock(trimmed.startsWith('!') ? trimmed : `!${trimmed}`);
  if (block?.rest !== '')
    return { values: {}, notices: [`Default flags "${trimmed}" ignored: not a flag list like +nosum,recent=6`] };
  const { items, notices } = checkItems(block.items, registry);
  const values: Record<string, FlagValue> = {};
  for (const item of items) {
    if (item.spec.scope === 'message') notices.push(`Default flag ${item.key} ignored: it marks a single message`);
    else if (item.op === 'remove') notices.push(`Default flag -${item.key} ignored: defaults can only switch flags on`);
    else values[item.key] = item.value;
  }
  return { values, notices: notices.map((notice) => notice.replace(/^Flag /, 'Default flag ')) };
}
