import { ScopedState } from '../../../src/state/scoped-state.js';
import type { StateStore } from '../../../src/state/types.js';
import { tempSqliteStore } from '../../helpers/temp-store.js';

/** A real SQLite state store in a temp dir, scoped like the context filter's (`f:context:`). */
export async function tempStore(): Promise<{ state: ScopedState; store: StateStore; dispose(): Promise<void> }> {
  const { store, dispose } = await tempSqliteStore('eunoe-compress-');
  return { store, state: new ScopedState(store, 'f:context:'), dispose };
}
