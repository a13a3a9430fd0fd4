/**
 * The spend-limit feature. It provides no service and no route: its filter (filters/spend-limit.ts) reserves against
 * the caps through the host's spend holds (`services.spend`), and `/usage/caps` is the dashboard's.
 */
import type { Feature } from '../../runtime/feature.js';

export function spendLimitFeature(): Feature {
  return { name: 'spend-limit' };
}
