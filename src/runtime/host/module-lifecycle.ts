import { EunoeError, FilterExecutionError } from '../../core/errors/index.js';
import { errorMessage } from '../../core/util/error-message.js';
import type { Logger } from '../../core/util/logger.js';
import type { FlagSpec } from '../../domain/flags/types.js';
import type { ActiveModule } from './active-module.js';
import { mergeSavedValves } from './coerce-valves.js';
import type { ModuleMap } from './module-map.js';
import type { HostServices, LifecycleArgs } from './types.js';
import { servicesWithoutUser } from './user-scoped-services.js';
import type { ValvesRepository } from './valves-repository.js';

/**
 * A module's lifecycle: start-up (a module whose onStartup throws is unloaded and listed as failed), shut-down
 * (onShutdown, then its worker or import is released) and valve application (onValvesUpdated).
 */
export class ModuleLifecycle {
  constructor(
    private readonly options: {
      modules: ModuleMap;
      valves: ValvesRepository;
      services: HostServices;
      logger: Logger;
      /** Called when a filter's registered flags appear (specs) or go away (undefined). */
      onFlags?: (filterId: string, specs: FlagSpec[] | undefined) => void;
    },
  ) {}

  /** What a lifecycle hook receives. */
  args(module: ActiveModule): LifecycleArgs<Record<string, unknown>> {
    return {
      valves: module.valves,
      logger: this.options.logger.child({ filter: module.id }),
      state: module.state,
      // No request, no user: a lifecycle hook writes no usage record and no hold.
      services: servicesWithoutUser(this.options.services),
      filterId: module.id,
    };
  }

  /** A module was added to the map: its flags are registered. */
  added(module: ActiveModule): void {
    this.options.onFlags?.(module.id, module.kind === 'filter' ? module.definition.flags : undefined);
  }

  async startup(module: ActiveModule): Promise<void> {
    try {
      await module.definition.onStartup?.(this.args(module));
    } catch (error) {
      this.options.modules.removeId(module.id);
      this.options.onFlags?.(module.id, undefined);
      await module.release?.();
      this.options.modules.fail(
        module.file,
        module.id,
        new Error(`onStartup failed: ${errorMessage(error) ?? error}`),
        module,
      );
    }
  }

  /** Unload `module` (`replaced`: a new version of its id is already in, and keeps the flags). */
  async shutdown(module: ActiveModule, replaced = false): Promise<void> {
    this.options.modules.remove(module);
    if (!replaced) this.options.onFlags?.(module.id, undefined);
    try {
      await module.definition.onShutdown?.(this.args(module));
    } catch (error) {
      this.options.logger.warn({ filter: module.id, err: errorMessage(error) }, 'onShutdown failed');
    }
    await module
      .release?.()
      .catch((error: unknown) =>
        this.options.logger.warn({ filter: module.id, err: errorMessage(error) }, 'releasing the filter failed'),
      );
  }

  /** Replace a module's admin valves (already validated) and call onValvesUpdated. */
  async applyValves(id: string, values: Record<string, unknown>): Promise<void> {
    const module = this.options.modules.activeById(id);
    if (!module) return;
    module.valves = values;
    try {
      await module.definition.onValvesUpdated?.(this.args(module));
    } catch (error) {
      if (error instanceof EunoeError) throw error;
      throw new FilterExecutionError(
        id,
        'onValvesUpdated',
        errorMessage(error) || `Filter ${id} onValvesUpdated failed`,
        { cause: error },
      );
    }
  }

  /** Re-read a module's saved valves (another replica changed them). */
  async refreshValves(id: string): Promise<void> {
    const module = this.options.modules.activeById(id);
    if (!module) return;
    const { values } = mergeSavedValves(module.valvesSchema, await this.options.valves.loadAdmin(id));
    try {
      await this.applyValves(id, values as Record<string, unknown>);
    } catch (error) {
      this.options.logger.warn(
        { filter: id, err: errorMessage(error) },
        'onValvesUpdated failed after a change from another replica',
      );
    }
  }
}
