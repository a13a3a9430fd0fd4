import { createSpendLimitFilter } from 'eunoe/shipped';

/** The spend-limit filter: refuses a request over a user's, group's or model's caps. The logic lives in `src/features/spend-limit/`. */
export default createSpendLimitFilter();
