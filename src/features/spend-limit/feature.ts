/**
 * The spend-limit feature. Its filter (filters/spend-limit.ts) reserves against the caps through the host's spend
 * holds (`services.spend`), and `/usage/caps` is the dashboard's. It provides the caps the loaded spend-limit filter's
 * valves put on a user (`spendCapsService`), which the accounting outlet's cost status line reads; the shared scopes
 * (groups, model patterns) a recorded reply counts toward, which the accounting outlet and the openai-proxy write on
 * the record; and the models its inlet switched to a cheaper one (`modelSwitchesService`), which the accounting outlet
 * and the openai-proxy record.
 */
import type { Feature } from '../../runtime/feature.js';
import { modelSwitchesService, spendCapsService, type SpendCaps } from '../../runtime/host/shipped-service-keys.js';
import { modelSwitches } from './model-switches.js';
import { capSubject, effectiveCaps, isSpendCapValves, spendScopes } from '../../domain/usage/spend-caps.js';
import { formatDecimal } from '../../domain/pricing/decimal.js';

export function spendLimitFeature(): Feature {
  return {
    name: 'spend-limit',
    services(host) {
      const filters = host.filters ?? (() => []);
      // The first loaded filter with the spend-limit valves (as the dashboard's /usage/caps reads it).
      const spendValves = () => {
        const valves = filters().find((filter) => isSpendCapValves(filter.valves))?.valves;
        return valves && isSpendCapValves(valves) ? valves : undefined;
      };
      const caps: SpendCaps = {
        async capsFor(user, now, model) {
          const valves = spendValves();
          if (!valves) return [];
          const exempt = Array.isArray(valves.exempt_roles) ? valves.exempt_roles : [];
          if (user.role && exempt.includes(user.role)) return [];
          return effectiveCaps(valves, user, now, model).map((cap) => ({
            kind: cap.period.kind,
            limit: formatDecimal(cap.limit),
            ...(cap.scope ? { scope: cap.scope } : {}),
            subject: capSubject(cap),
          }));
        },
        async scopesFor(user, model, now) {
          const valves = spendValves();
          return valves ? spendScopes(valves, user, model, now) : [];
        },
      };
      host.provided.provide(spendCapsService, caps);
      host.provided.provide(modelSwitchesService, modelSwitches(host.store));
    },
  };
}
