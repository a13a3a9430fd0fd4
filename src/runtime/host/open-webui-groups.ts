/**
 * The user's Open WebUI groups on the Pipelines connection, whose `user` carries only id, email, name and role: read
 * from Open WebUI's own API with an admin key (`OPENWEBUI_URL`, `OPENWEBUI_API_KEY`), cached and refreshed every
 * `OPENWEBUI_GROUPS_REFRESH_S`. Hooks then see `user.groups` as through the generated Function.
 *
 * Wire format, read in Open WebUI's backend (`backend/open_webui/routers/groups.py`, mounted at `/api/v1/groups` in
 * `main.py`), async data layer of v0.9+ (the copy read has `get_async_session`; same routes in v0.6–0.8):
 * - `GET /api/v1/groups/` (admins get every group): `list[GroupResponse]`, each `{id, user_id, name, description,
 *   data, meta, permissions, created_at, updated_at, member_count}`. Versions before the `group_member` table (≤0.6.x)
 *   also carry `user_ids` there.
 * - `GET /api/v1/groups/id/{id}/export` (admin): `GroupExportResponse` = the group plus `user_ids: list[str]`; read
 *   for each group whose list entry has no `user_ids`.
 * Auth: `Authorization: Bearer <key>` (an admin's API key; `get_admin_user` refuses any other role).
 *
 * Never blocks a request for long, never fails one: the first call waits for the first read (at most
 * `timeoutMs`); later calls answer from the cache while a refresh runs. When Open WebUI cannot be read, one warning
 * names why (then groups are unknown: `undefined`, requests still run) and a retry waits `retryMs`.
 */
import type { Logger } from '../../core/util/logger.js';
import { OutageNotice } from '../../core/util/outage-notice.js';
import { waitAtMost } from '../../core/util/wait-at-most.js';

/** One group as hooks see it in `user.groups`. */
export interface UserGroup {
  id: string;
  name?: string;
}

/** Where the host learns a user's groups (absent: hooks see only what the caller sent). */
export interface UserGroups {
  /** The user's groups, or undefined when they cannot be known now. Never throws. */
  groupsOf(userId: string): Promise<UserGroup[] | undefined>;
}

export interface OpenWebuiGroupsOptions {
  /** Open WebUI's address as Eunoe reaches it, e.g. `http://open-webui:8080`. */
  url: string;
  /** An admin's API key (Settings → Account → API keys). */
  apiKey: string;
  logger: Logger;
  /** How long a read stays fresh (default 5 min). */
  refreshMs?: number;
  /** Wait after a failed read before the next try (default 30 s). */
  retryMs?: number;
  /** Longest wait for one HTTP call (default 5 s). */
  timeoutMs?: number;
  now?: () => number;
}

type Snapshot = Map<string, UserGroup[]>;

/** Group exports read at once during a refresh. */
const EXPORTS_AT_ONCE = 8;

/** Reads and caches Open WebUI's group memberships (see the module comment). */
export class OpenWebuiGroups implements UserGroups {
  private snapshot?: Snapshot;
  private readAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  private inFlight?: Promise<void>;
  private readonly outage = new OutageNotice("Open WebUI's groups API");
  private readonly base: string;
  private readonly refreshMs: number;
  private readonly retryMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly options: OpenWebuiGroupsOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.refreshMs = options.refreshMs ?? 300_000;
    this.retryMs = options.retryMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  async groupsOf(userId: string): Promise<UserGroup[] | undefined> {
    const at = this.now();
    const stale = at - this.readAt >= this.refreshMs;
    const mayTry = at - this.failedAt >= this.retryMs;
    if (stale && mayTry && !this.inFlight) {
      this.inFlight = this.refresh().finally(() => {
        this.inFlight = undefined;
      });
    }
    // The first read is awaited (at most `timeoutMs`); later ones refresh behind the cached answer.
    if (!this.snapshot && this.inFlight) await waitAtMost(this.inFlight, this.timeoutMs);
    const snapshot = this.snapshot;
    if (!snapshot) return undefined;
    return snapshot.get(userId) ?? [];
  }

  /** Read every group and its members; keeps the last good snapshot when a read fails. */
  private async refresh(): Promise<void> {
    const { logger } = this.options;
    try {
      const listed = await this.get('/api/v1/groups/');
      if (!Array.isArray(listed)) throw new Error('GET /api/v1/groups/ did not answer a JSON array');
      const snapshot: Snapshot = new Map();
      const entries = listed.filter(
        (entry): entry is Record<string, unknown> & { id: string } => isObject(entry) && typeof entry.id === 'string',
      );
      // Each group's members: in the list itself (before the group_member table), else its export, 8 at a time.
      const members: string[][] = [];
      for (let start = 0; start < entries.length; start += EXPORTS_AT_ONCE) {
        const batch = entries.slice(start, start + EXPORTS_AT_ONCE);
        members.push(...(await Promise.all(batch.map((entry) => this.membersOf(entry)))));
      }
      for (const [index, entry] of entries.entries()) {
        const group: UserGroup = { id: entry.id, ...(typeof entry.name === 'string' ? { name: entry.name } : {}) };
        for (const member of members[index]!) {
          const list = snapshot.get(member) ?? [];
          list.push(group);
          snapshot.set(member, list);
        }
      }
      this.snapshot = snapshot;
      this.readAt = this.now();
      this.outage.recovered(logger);
      logger.debug({ groups: listed.length, members: snapshot.size }, "Open WebUI's groups read");
    } catch (error) {
      this.failedAt = this.now();
      this.outage.failed(
        logger,
        error,
        `cannot read the users' groups from Open WebUI at ${this.base} (OPENWEBUI_URL); ${
          this.snapshot ? 'using the last groups read' : 'groups are unknown on the Pipelines connection'
        }, requests still run`,
      );
    }
  }

  private async membersOf(entry: Record<string, unknown> & { id: string }): Promise<string[]> {
    const listed = stringList(entry.user_ids);
    if (listed) return listed;
    const exported = await this.get(`/api/v1/groups/id/${encodeURIComponent(entry.id)}/export`);
    return isObject(exported) ? (stringList(exported.user_ids) ?? []) : [];
  }

  private async get(path: string): Promise<unknown> {
    const response = await fetch(this.base + path, {
      headers: { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) {
      const hint =
        response.status === 401 || response.status === 403 ? ' (OPENWEBUI_API_KEY must be an admin key)' : '';
      throw new Error(`GET ${path} answered HTTP ${response.status}${hint}`);
    }
    return response.json();
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

/** `user` with its groups filled from `source` when it has an id and carries no `groups` of its own. */
export async function withGroups<U extends { id?: unknown; groups?: unknown }>(
  user: U | null,
  source: UserGroups | undefined,
): Promise<U | null> {
  if (!user || !source || Array.isArray(user.groups) || typeof user.id !== 'string' || !user.id) return user;
  const groups = await source.groupsOf(user.id);
  return groups ? { ...user, groups } : user;
}
