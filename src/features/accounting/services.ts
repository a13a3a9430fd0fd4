/**
 * The accounting feature's service: reply claims, which pair the `openai-proxy`'s and the accounting outlet's records
 * of one proxied reply so it is recorded once (reply-claims.ts). Both sides read it by its key,
 * declared with the other shipped keys in src/runtime/host/shipped-service-keys.ts.
 */
import type { ServiceRegistry } from '../../runtime/host/service-registry.js';
import { createReplyClaims } from './reply-claims.js';
import type { StateStore } from '../../state/types.js';
import { replyClaimsService } from '../../runtime/host/shipped-service-keys.js';

export { replyClaimsService };

export function provideAccountingServices(registry: ServiceRegistry, deps: { store: StateStore }): void {
  registry.provide(replyClaimsService, createReplyClaims(deps.store));
}
