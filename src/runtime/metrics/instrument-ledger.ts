import type { Ledger } from '../../domain/usage/types.js';
import type { Metrics } from './metrics.js';

/** The ledger with each new record (not a repeated message id) counted in the usage metrics. */
export function instrumentLedger(ledger: Ledger, metrics: Metrics): Ledger {
  return {
    ...ledger,
    async record(entry) {
      const added = await ledger.record(entry);
      if (added) metrics.usageRecorded(entry);
      return added;
    },
  };
}
