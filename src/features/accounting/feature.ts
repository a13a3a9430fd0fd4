/**
 * The accounting feature: reply claims, which pair the `openai-proxy`'s and the accounting outlet's records of one
 * proxied reply. Its filter (filters/accounting.ts) records usage through the host's ledger; `GET /usage` is the
 * host's (src/server/routes/usage.ts).
 */
import type { Feature } from '../../runtime/feature.js';
import { provideAccountingServices } from './services.js';

export function accountingFeature(): Feature {
  return {
    name: 'accounting',
    services(host) {
      provideAccountingServices(host.provided, host);
    },
  };
}
