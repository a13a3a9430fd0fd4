import { createAccountingFilter } from 'eunoe/shipped';

/** The accounting filter: records each reply's usage and cost in the ledger. The logic lives in `src/features/accounting/`. */
export default createAccountingFilter();
