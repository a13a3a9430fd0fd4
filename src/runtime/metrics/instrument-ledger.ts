import type { Ledger } from '../../domain/usage/types.js';
import type { Metrics } from './metrics.js';

/**
 * The ledger with each new record (not a repeated message id) counted in the usage metrics, and each record the
 * store refused (neither written nor journaled) in `eunoe_ledger_unrecorded_total`.
 */
export function instrumentLedger(ledger: Ledger, metrics: Metrics): Ledger {
  return {
    ...ledger,
    async record(entry) {
      let added: boolean;
      try {
        added = await ledger.record(entry);
      } catch (error) {
        metrics.usageUnrecorded();
        throw error;
      }
      if (added) metrics.usageRecorded(entry);
      return added;
    },
  };
}
