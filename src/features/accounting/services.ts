/**
 * The accounting feature's service: reply claims, which pair the `openai-proxy`'s and the accounting outlet's records
 * of one proxied reply so it is recorded once (src/runtime/usage/reply-claims.ts). Both sides read it by this key.
 */
import { serviceKey, type ServiceRegistry } from '../../runtime/host/service-registry.js';
import { createReplyClaims, type ReplyClaims } from '../../runtime/usage/reply-claims.js';
import type { StateStore } from '../../state/types.js';

export const replyClaimsService = serviceKey<ReplyClaims>('accounting.reply-claims');

export function provideAccountingServices(registry: ServiceRegistry, deps: { store: StateStore }): void {
  registry.provide(replyClaimsService, createReplyClaims(deps.store));
}
