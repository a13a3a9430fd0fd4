import type { UsageRecord } from '../../domain/usage/types.js';
import { provided } from '../host/service-registry.js';
import { spendCapsService, type SpendCapUser } from '../host/shipped-service-keys.js';
import type { HostServices } from '../host/types.js';
import { errorMessage } from '../../core/util/error-message.js';

/**
 * `record` with the shared cap scopes it counts toward (UsageRecord.scopes), as the spend-limit feature's valves put
 * them on its user and model now; the record itself when there are none or no spend-limit feature is loaded. Never
 * throws: a reply is recorded even when its scopes cannot be read (it then counts toward its user's caps only).
 */
export async function withSpendScopes(
  record: UsageRecord,
  user: SpendCapUser | null | undefined,
  services: HostServices,
  logger: { warn(details: object, message: string): void },
): Promise<UsageRecord> {
  const caps = provided(services, spendCapsService);
  if (!caps) return record;
  try {
    const scopes = await caps.scopesFor(
      {
        id: record.userId,
        email: user?.email ?? record.userEmail,
        role: user?.role ?? record.userRole,
        groups: user?.groups,
      },
      [record.model, record.pricedAs],
      record.time,
    );
    return scopes.length > 0 ? { ...record, scopes } : record;
  } catch (error) {
    logger.warn({ err: errorMessage(error) }, 'spend scopes not read; the reply counts toward its user only');
    return record;
  }
}
