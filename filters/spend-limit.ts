import { createSpendLimitFilter } from 'eunoe';

/** The shipped spend-limit filter (real clock). The logic lives in `src/features/spend-limit/`; tests build their own with an injected clock. */
export { createSpendLimitFilter };
export default createSpendLimitFilter();
