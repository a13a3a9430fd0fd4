import {
  closeContext,
  contextInlet,
  contextOutlet,
  contextUserValves,
  contextValves,
  defineFilter,
  warmContext,
} from 'eunoe';

/**
 * The context filter: on every inlet, scores the history against the current question and keeps,
 * summarizes or drops messages under the token/cost budget, obeying the chat's `!flags`; on
 * outlet, notes under the reply. The logic lives in `src/features/context/`; this file only declares it.
 */
export default defineFilter({
  name: 'Context Budget',
  valves: contextValves,
  userValves: contextUserValves,
  inlet: contextInlet,
  outlet: contextOutlet,
  onStartup: warmContext,
  onShutdown: closeContext,
});
