import { Router } from 'express';
import type { StateStore, StoreHealth } from '../../state/types.js';
import type { ModuleRegistry } from '../../runtime/host/module-registry.js';
import { errorMessage } from '../../core/util/error-message.js';

/** Key used by the readiness probe's store round trip (never written). */
const PROBE_KEY = 'eunoe:readyz-probe';

/**
 * The store's health for `GET /health`: its own view (connection, writes waiting in the journal, calls timing out)
 * and a bounded read made now, so a store that hangs (Redis paused, a locked SQLite file) is `ok: false` even on a
 * replica that has not called it since.
 */
export async function checkStoreHealth(store: StateStore): Promise<StoreHealth> {
  let failure: string | undefined;
  try {
    await store.get(PROBE_KEY);
  } catch (error) {
    failure = errorMessage(error);
  }
  const health = store.health(); // after the read, so a read that just timed out counts
  if (failure === undefined) return health;
  return { ...health, ok: false, detail: `${health.detail ? `${health.detail}; ` : ''}does not answer: ${failure}` };
}

export interface ProbeDeps {
  store: StateStore;
  registry: ModuleRegistry;
}

/**
 * Public probes for container orchestrators (no API key; they reveal nothing about filters or data):
 * - `GET /healthz`: liveness, answered by the event loop alone (no store, no filters);
 * - `GET /readyz`: 200 only when the filters have been loaded and the state store answers a read
 *   (bounded by STATE_TIMEOUT_MS on Redis), else 503 with the reason, so a load balancer stops
 *   sending chats to a replica whose Redis is gone.
 */
export function probesRouter(deps: ProbeDeps): Router {
  const router = Router();
  router.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  router.get('/readyz', async (_request, response) => {
    const checks = { filters: deps.registry.loaded, store: false, ledger: true };
    let reason: string | undefined;
    try {
      await deps.store.get(PROBE_KEY);
      checks.store = true;
    } catch (error) {
      reason = `state store (${deps.store.backend}) does not answer: ${errorMessage(error)}`;
    }
    const health = deps.store.health();
    // Ledger records can be neither written nor journaled (a full disk with the journal's reserve used up): the
    // outlets answer 503, so this replica should not take chats.
    if (health.ledger?.refusing) {
      checks.ledger = false;
      reason ??= `ledger records are refused, neither written nor journaled (${health.ledger.refused} so far)`;
    }
    if (!checks.filters) reason ??= 'filters are not loaded yet';
    const ready = checks.filters && checks.store && checks.ledger;
    // Redis only: one node, Sentinel or Cluster (the kind alone: no address on a route without the key).
    const topology = health.topology;
    const extra = topology ? { topology: { kind: topology.kind } } : {};
    response
      .status(ready ? 200 : 503)
      .json(ready ? { status: 'ready', checks, ...extra } : { status: 'not ready', checks, detail: reason, ...extra });
  });
  return router;
}
