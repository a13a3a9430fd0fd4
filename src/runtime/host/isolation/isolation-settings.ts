import { ConfigError } from '../../../core/errors/index.js';

/** `FILTER_ISOLATION`: `auto` isolates filters not shipped with Eunoe, `worker` all, `off` none. */
export type IsolationMode = 'auto' | 'worker' | 'off';
/** Where one filter runs: `main` thread or a `worker` thread. */
export type Placement = 'main' | 'worker';

export interface IsolationSettings {
  mode: IsolationMode;
  /** Per file stem (`my-filter` for `filters/my-filter.ts`), from FILTER_ISOLATION_OVERRIDES. */
  overrides: ReadonlyMap<string, Placement>;
  loadTimeoutMs: number;
  maxMemoryMb: number;
}

/** Parse `FILTER_ISOLATION_OVERRIDES`: `stem=worker,other=main`. Throws ConfigError. */
export function parseOverrides(text: string | undefined): Map<string, Placement> {
  const overrides = new Map<string, Placement>();
  for (const part of (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = /^([A-Za-z0-9_.-]+)\s*=\s*(main|worker)$/.exec(part);
    if (!match)
      throw new ConfigError(
        `Invalid environment: FILTER_ISOLATION_OVERRIDES: "${part}" is not <file stem>=main|worker`,
      );
    overrides.set(match[1]!, match[2] as Placement);
  }
  return overrides;
}

/**
 * Where a shipped filter runs under `auto`: the main thread, a worker, or `large-in-worker` (the main thread, and a
 * worker of its own for chats past the size-routed-definition.ts thresholds).
 */
export type ShippedPlacement = Placement | 'large-in-worker';

/**
 * How a file is loaded: in a worker; in the main thread; in the main thread with its large chats in a worker
 * (`large-in-worker`, shipped filters whose work grows with a chat); or in the main thread after a worker proved it
 * imports in time (`probe`: files not shipped with Eunoe forced to `main`). `shipped` is false for a file not shipped
 * with Eunoe, else where that shipped filter runs under `auto` (SHIPPED_PLACEMENT).
 */
export function placementFor(
  settings: IsolationSettings,
  stem: string,
  shipped: false | ShippedPlacement,
): ShippedPlacement | 'probe' {
  const override = settings.overrides.get(stem);
  if (override === 'worker') return 'worker';
  if (override === 'main') return shipped || settings.mode === 'off' ? 'main' : 'probe';
  if (settings.mode === 'off') return 'main';
  if (settings.mode === 'worker') return 'worker';
  return shipped || 'worker';
}
