import { Metrics } from '../../../src/runtime/metrics/metrics.js';
import { ServiceRegistry } from '../../../src/runtime/host/service-registry.js';
import { provideContextServices } from '../../../src/features/context/services.js';
import { provideAccountingServices } from '../../../src/features/accounting/services.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/core/config.js';
import { ScopedState } from '../../../src/state/scoped-state.js';
import type { StateStore } from '../../../src/state/types.js';
import type {
  FilterEvent,
  AnyValvesSchema,
  FilterBody,
  FilterDefinition,
  HostServices,
  PipelineUser,
} from '../../../src/runtime/host/types.js';
import { createActiveFlags } from '../../../src/domain/flags/active-flags.js';
import type { FlagValue } from '../../../src/domain/flags/types.js';
import { createPricingService, type PricingService } from '../../../src/runtime/pricing/pricing-service.js';
import { createLedger } from '../../../src/runtime/usage/ledger.js';
import { spendHoldsService } from '../../../src/domain/usage/spend-reservations.js';
import { createTokenCorrections } from '../../../src/runtime/usage/token-corrections.js';
import { silentLogger } from '../../../src/core/util/logger.js';
import { PendingWork } from '../../../src/runtime/pipes/pending-work.js';
import { DOC_FIXTURE } from '../../pricing/fixtures.js';

/** Real host services on a real store: pricing (bundled snapshot + the fixture price list as custom file), ledger, corrections. */
export async function realServices(
  store: StateStore,
  dir: string,
): Promise<{ services: Required<HostServices>; pricing: PricingService }> {
  const custom = path.join(dir, 'custom-pricing.json');
  writeFileSync(custom, JSON.stringify(DOC_FIXTURE));
  const config = loadConfig(
    { PRICING_FETCH: 'false', PRICING_DIR: path.join(dir, 'pricing'), CUSTOM_PRICING_FILE: custom },
    dir,
  );
  const pricing = createPricingService({ config, logger: silentLogger() });
  await pricing.start();
  const provided = new ServiceRegistry();
  provideContextServices(provided, { store, metrics: new Metrics() });
  provideAccountingServices(provided, { store });
  return {
    pricing,
    services: {
      pricing: pricing.lookup,
      ledger: createLedger(store),
      spend: spendHoldsService(store.usage?.holds)!,
      corrections: createTokenCorrections(store),
      provided: provided.services,
      pending: new PendingWork(),
    },
  };
}

/** Everything a hook receives, as the host would build it: parsed valves, a scoped state, ActiveFlags. */
export function hookArgs<V extends AnyValvesSchema, U extends AnyValvesSchema | undefined>(
  definition: FilterDefinition<V, U>,
  options: {
    body: FilterBody;
    user?: PipelineUser | null;
    store: StateStore;
    services: HostServices;
    valves?: Record<string, unknown>;
    userValves?: Record<string, unknown>;
    flags?: Record<string, FlagValue>;
    chatKey?: string;
    hook: 'inlet' | 'outlet';
    filterId: string;
    /** Receives the hook's events (FilterEvent); dropped when absent. */
    emit?: (event: FilterEvent) => void;
    /** Whether the events reach the chat (HookArgs.eventsReachUser); true unless set, as through the Function. */
    eventsReachUser?: boolean;
  },
) {
  return {
    body: options.body,
    user: options.user === undefined ? { id: 'u1', email: 'u1@example.com', name: 'U', role: 'user' } : options.user,
    valves: definition.valves!.parse(options.valves ?? {}) as never,
    userValves: (definition.userValves ? definition.userValves.parse(options.userValves ?? {}) : {}) as never,
    logger: silentLogger(),
    signal: new AbortController().signal,
    state: new ScopedState(options.store, `f:${options.filterId}:`),
    flags: createActiveFlags({ chatKey: options.chatKey ?? 'chat-1', persistent: options.flags }),
    services: options.services,
    filterId: options.filterId,
    requestId: 'req-1',
    deadline: Date.now() + 30_000,
    hook: options.hook,
    emit: options.emit ?? (() => undefined),
    eventsReachUser: options.eventsReachUser ?? true,
  };
}
