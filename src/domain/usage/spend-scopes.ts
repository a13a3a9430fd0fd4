/**
 * Who a shared cap applies to: the user's Open WebUI groups and the request's model. Groups come from the hook's user
 * object (`user.groups: [{id, name}]`, sent by the generated Function or filled on the Pipelines path from Open WebUI's
 * groups API); when it carries none, from the spend-limit valve `group_members` (group name or id → user ids or emails).
 *
 * A shared cap is counted under a scope key: `g:<group>` (the group as the valves name it), `m:<pattern>` (a model
 * pattern for everyone) and `g:<group>|m:<pattern>` (a model pattern for one group's members). The store keeps a spend
 * counter per scope and period, written with each record that names the scope, and the holds of the scope's requests in
 * flight; the user's own caps keep their per-user counters (no scope key).
 */

/** One group of a user as the hook's user object carries it. */
export interface UserGroup {
  id: string;
  name?: string;
}

/** The part of the hook's user object the scopes read. */
export interface ScopedUser {
  id?: string;
  email?: string;
  role?: string;
  groups?: unknown;
}

/** The groups `user.groups` carries (`{id, name}` objects or bare ids; entries without a string id are skipped). */
export function groupsOf(user: ScopedUser): UserGroup[] {
  if (!Array.isArray(user.groups)) return [];
  const groups: UserGroup[] = [];
  for (const entry of user.groups) {
    if (typeof entry === 'string' && entry) groups.push({ id: entry }); // a bare id
    if (!entry || typeof entry !== 'object') continue;
    const { id, name } = entry as { id?: unknown; name?: unknown };
    if (typeof id !== 'string' || !id) continue;
    groups.push({ id, ...(typeof name === 'string' && name ? { name } : {}) });
  }
  return groups;
}

/**
 * The user's groups: those the user object carries; when it carries none, the `group_members` entries that list the
 * user's id or email (each as a group whose id and name are the valve's key).
 */
export function userGroups(user: ScopedUser, members: Record<string, readonly string[]> | undefined): UserGroup[] {
  const carried = groupsOf(user);
  if (carried.length > 0 || !members) return carried;
  const found: UserGroup[] = [];
  for (const [group, list] of Object.entries(members)) {
    if (!Array.isArray(list)) continue;
    if ((user.id && list.includes(user.id)) || (user.email && list.includes(user.email)))
      found.push({ id: group, name: group });
  }
  return found;
}

/** True when `key` (a valve's group name or id) names one of `groups`. */
export function inGroup(groups: readonly UserGroup[], key: string): boolean {
  return groups.some((group) => group.id === key || group.name === key);
}

const globCache = new Map<string, RegExp>();

/** True when `model` matches `pattern`: `*` any run of characters, `?` one character, everything else literal. */
export function modelMatches(pattern: string, model: string): boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) return pattern === model;
  let regex = globCache.get(pattern);
  if (!regex) {
    const source = pattern
      .split('')
      .map((character) =>
        character === '*' ? '.*' : character === '?' ? '.' : character.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
    regex = new RegExp(`^${source}$`, 's');
    if (globCache.size > 1000) globCache.clear();
    globCache.set(pattern, regex);
  }
  return regex.test(model);
}

/** The scope key of a group's shared cap. */
export const groupScope = (group: string) => `g:${group}`;
/** The scope key of a model pattern's cap, for everyone or (with `group`) for one group's members. */
export const modelScope = (pattern: string, group?: string) =>
  group === undefined ? `m:${pattern}` : `g:${group}|m:${pattern}`;
