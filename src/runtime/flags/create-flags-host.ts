import type { Logger } from '../../core/util/logger.js';
import type { StateStore } from '../../state/types.js';
import { ScopedState } from '../../state/scoped-state.js';
import { FlagRegistry } from '../../domain/flags/index.js';
import { resolveFlags } from './resolve-flags.js';
import type { FlagsHost } from '../host/flags-host.js';

/** The flags host over src/domain/flags: one registry (built-ins + filters' flags), state under `h:flags:`. */
export function createFlagsHost(options: {
  store: StateStore;
  logger: Logger;
  ttlMs: number;
}): FlagsHost & { registry: FlagRegistry } {
  const registry = new FlagRegistry();
  const store = new ScopedState(options.store, 'h:flags:');
  return {
    registry,
    resolve: ({ body, user, hook, defaults }) =>
      resolveFlags({ body, user, hook, defaults, registry, store, ttlMs: options.ttlMs, logger: options.logger }),
  };
}
