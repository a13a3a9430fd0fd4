import { createAccountingFilter } from 'eunoe';

/** The shipped accounting filter (real clock). The logic lives in `src/features/accounting/`; tests build their own with an injected clock. */
export { createAccountingFilter };
export default createAccountingFilter();
