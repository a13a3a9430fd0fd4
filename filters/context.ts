import { createContextFilter } from 'eunoe/shipped';

/**
 * The context filter: on every inlet, scores the history against the current question and keeps,
 * summarizes or drops messages under the token/cost budget, obeying the chat's `!flags`; on
 * outlet, notes under the reply. The logic lives in `src/features/context/`.
 */
export default createContextFilter();
