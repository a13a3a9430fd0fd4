import type { ScopedState } from '../../state/scoped-state.js';
import type { FilterBody, HostServices, PipelineUser } from '../../runtime/host/types.js';
import { lastAssistantMessage } from '../../domain/usage/find-usage.js';
import { contentText } from '../../domain/usage/estimate-tokens.js';
import { replyFingerprint } from '../../domain/usage/reply-fingerprint.js';
import { REPLY_CLAIM_TTL_MS } from './reply-claims.js';
import { provided } from '../../runtime/host/service-registry.js';
import { replyClaimsService } from './services.js';

/**
 * True when the `openai-proxy` pipe already recorded this reply (so the outlet must not):
 * the outlet claims the reply's fingerprint (user id, `body.model`, reply text without Eunoe's
 * appended lines); when the proxy's claim was there, it is consumed and the message id is
 * remembered, so a repeated outlet for the same message is skipped too. Replies of other models
 * never match a proxy claim (the proxy's model ids carry its pipe id). Without the service: false.
 */
export async function recordedByProxy(options: {
  body: FilterBody;
  user: PipelineUser | null;
  state: ScopedState;
  services: HostServices;
  messageId: string;
}): Promise<boolean> {
  const { body, services, state } = options;
  const assistant = lastAssistantMessage(body);
  const replies = provided(services, replyClaimsService);
  if (!replies || !assistant || typeof body.model !== 'string') return false;
  const pairedKey = `paired:${options.messageId}`;
  try {
    if (await state.get(pairedKey)) return true;
    const userId = typeof options.user?.id === 'string' && options.user.id ? options.user.id : 'anonymous';
    const fingerprint = replyFingerprint(userId, body.model, contentText(assistant.content));
    if (!(await replies.claim(fingerprint, 'outlet'))) return false;
    await state.set(pairedKey, true, { ttlMs: REPLY_CLAIM_TTL_MS });
    return true;
  } catch {
    return false; // The store is away: record (the ledger keeps its own repeat detection by message id).
  }
}
