import type { ScopedState } from '../../state/scoped-state.js';
import type { DeclaredKind } from './declared-kind.js';
import type { FilterOrigin } from './filter-sources.js';
import type { LoadedFilter, LoadedPipe } from './load-filter-file.js';

/** A loaded, started filter with its current admin valves (which always have `pipelines` and `priority`). */
export type ActiveFilter = LoadedFilter & {
  valves: Record<string, unknown> & { pipelines: string[]; priority: number };
  state: ScopedState;
};

/** A loaded, started pipe with its current valves (its own only: a model has no `pipelines` or `priority`). */
export type ActivePipe = LoadedPipe & { valves: Record<string, unknown>; state: ScopedState };

/** What the registry holds: a filter or a pipe, told apart by `kind`. */
export type ActiveModule = ActiveFilter | ActivePipe;

/** A file that failed to load or start; listed by GET /pipelines. */
export interface FailedFilter {
  id: string;
  file: string;
  error: string;
  line?: number;
  /** `package` (shipped with Eunoe) or `user` (the filters folder). */
  origin?: FilterOrigin;
  /** What the file declares itself to be (`unknown` when a broken file does not tell). */
  kind: DeclaredKind;
}
