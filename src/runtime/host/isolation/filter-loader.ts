import type { Logger } from '../../../core/util/logger.js';
import type { HostServices } from '../types.js';
import { fileStem, loadFilterFile, type LoadedModule } from '../load-filter-file.js';
import { loadIsolated, probeImport } from './isolated-definition.js';
import { routeLargeBodiesToWorker } from './size-routed-definition.js';
import { placementFor, type IsolationSettings } from './isolation-settings.js';
import { SHIPPED_WORKER_MAX_MB, type ShippedFilters } from './shipped-filters.js';

/** Loads one filter file where the isolation settings place it. */
export type FilterLoader = (file: string) => Promise<LoadedModule>;

/**
 * The loader the registry uses: shipped filters where SHIPPED_PLACEMENT puts them (the main thread, the context
 * filter's large chats in a worker of its own) unless told otherwise, the others in worker threads; a non-shipped file forced into the main thread is first
 * imported in a worker with a time limit, so an import-time loop cannot block the server.
 */
export function createFilterLoader(options: {
  settings: IsolationSettings;
  shipped: ShippedFilters;
  services: HostServices;
  logger: Logger;
}): FilterLoader {
  const { settings, shipped } = options;
  return async (file) => {
    const shippedPlacement = shipped.placement(file);
    const placement = placementFor(settings, fileStem(file), shippedPlacement);
    const workerOptions = {
      file,
      services: options.services,
      logger: options.logger,
      loadTimeoutMs: settings.loadTimeoutMs,
      maxMemoryMb:
        shippedPlacement === false ? settings.maxMemoryMb : Math.max(settings.maxMemoryMb, SHIPPED_WORKER_MAX_MB),
    };
    if (placement === 'worker') {
      const isolated = await loadIsolated(workerOptions);
      // A pipe streams from the main thread (src/runtime/pipes/): the worker's import proved the file loads in time.
      if (isolated !== 'pipe') return isolated;
    } else if (placement === 'probe') await probeImport(workerOptions);
    const loaded: LoadedModule = { ...(await loadFilterFile(file)), isolation: 'main' };
    if (placement !== 'large-in-worker' || loaded.kind !== 'filter') return loaded;
    return routeLargeBodiesToWorker(loaded, () => loadIsolated(workerOptions), options.logger);
  };
}
