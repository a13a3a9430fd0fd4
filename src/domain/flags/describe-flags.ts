import type { ActiveFlags, FlagValue } from './types.js';

/** Marker that starts the line, so users (and filters) can tell it from the model's reply. */
export const FLAGS_LINE_PREFIX = '⚑ Eunoe flags:';

/** `key`, `key=6`, `key=false`, `key="a b"` as a user would type it. */
function formatFlag(key: string, value: FlagValue): string {
  if (value === true) return key;
  const text = String(value);
  return /^[^,\s"']+$/.test(text) ? `${key}=${text}` : `${key}="${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

function formatMap(values: Readonly<Record<string, FlagValue>>, sign: string): string[] {
  return Object.keys(values)
    .sort()
    .map((key) => `${sign}${formatFlag(key, values[key] as FlagValue)}`);
}

/**
 * The one-line summary the outlet appends for `!flags`, e.g.
 * `⚑ Eunoe flags: +nosum, +recent=6 · pinned: 2 messages · tags: decision (3)`.
 */
export function describeFlags(flags: ActiveFlags): string {
  const persistent = formatMap(flags.persistent, '+');
  const sections = [persistent.length > 0 ? persistent.join(', ') : 'no persistent flags'];
  const defaults = Object.fromEntries(
    Object.entries(flags.defaults ?? {}).filter(([key]) => !(key in flags.persistent)),
  );
  if (Object.keys(defaults).length > 0) sections.push(`defaults: ${formatMap(defaults, '').join(', ')}`);
  const temporary = Object.fromEntries(Object.entries(flags.temporary).filter(([key]) => key !== 'flags'));
  if (Object.keys(temporary).length > 0) sections.push(`this turn: ${formatMap(temporary, '').join(', ')}`);
  const marks = Object.values(flags.marks);
  const pinned = marks.filter((mark) => mark.pinned).length;
  if (pinned > 0) sections.push(`pinned: ${pinned} message${pinned === 1 ? '' : 's'}`);
  const tagCounts = new Map<string, number>();
  for (const mark of marks) for (const tag of mark.tags ?? []) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
  if (tagCounts.size > 0) {
    const tags = [...tagCounts].sort(([a], [b]) => a.localeCompare(b)).map(([tag, count]) => `${tag} (${count})`);
    sections.push(`tags: ${tags.join(', ')}`);
  }
  return `${FLAGS_LINE_PREFIX} ${sections.join(' · ')}`;
}
