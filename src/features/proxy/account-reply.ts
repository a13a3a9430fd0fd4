import type { PipeArgs } from '../../runtime/pipes/types.js';
import type { ReplyAssembler } from '../../runtime/pipes/reply-assembler.js';
import { buildUsageRecord } from '../../domain/usage/build-usage-record.js';
import { replyFingerprint } from '../../domain/usage/reply-fingerprint.js';
import type { UsageRecord } from '../../domain/usage/types.js';
import { reportDegraded } from '../../core/util/store-outage.js';
import { requestReservationId, settleHolds } from '../../domain/usage/spend-reservations.js';
import { provided } from '../../runtime/host/service-registry.js';
import { modelSwitchesService, replyClaimsService, type ModelSwitch } from '../../runtime/host/shipped-service-keys.js';
import { isRecord } from '../../core/messages/chat-message.js';
import { withSpendScopes } from '../../runtime/usage/spend-scopes-of.js';
import { errorMessage } from '../../core/util/error-message.js';

/**
 * Record one proxied reply in the ledger, priced like the accounting filter does (the
 * provider's `usage.cost` → the price table → a tokenizer estimate when the upstream sent no
 * usage, each marked in `costSource`/`usageSource`). Keyed `proxy:<upstream completion id>`; when
 * the accounting filter's outlet already recorded the same reply (see `ReplyClaims`), nothing is
 * written. Never throws: a failed write is logged with the whole record. The write is tracked in
 * `services.pending`, so a shutdown right after the answer waits for it before the store closes.
 */
export function accountReply(
  args: PipeArgs<unknown, unknown>,
  reply: ReplyAssembler,
  now = Date.now(),
): Promise<UsageRecord | undefined> {
  const work = record(args, reply, now);
  args.services.pending?.track(work);
  return work;
}

async function record(
  args: PipeArgs<unknown, unknown>,
  reply: ReplyAssembler,
  now: number,
): Promise<UsageRecord | undefined> {
  const { services, logger, user } = args;
  if (!services.ledger) return undefined;
  let record: UsageRecord | undefined;
  try {
    const assistant = { role: 'assistant', content: reply.content, ...(reply.usage ? { usage: reply.usage } : {}) };
    const built = await buildUsageRecord({
      body: {
        model: args.model,
        // The request id keeps two calls apart even when an upstream repeats its completion ids (or sends none).
        id: `proxy:${reply.id ?? 'no-id'}:${args.requestId}`,
        messages: [...args.messages, assistant],
        // The upstream id is what the price table knows (`openai/gpt-4o`), the full id is what /usage shows.
        metadata: { model: { info: { base_model_id: args.modelId } } },
      },
      user,
      pricing: services.pricing,
      now,
    });
    record = built?.record;
    if (!record) return undefined;
    // Priced as the model that answered (args.model); when the spend-limit inlet switched the request to it, the model
    // asked for is kept beside it, as the accounting outlet records it.
    const switched = await modelSwitchOf(args, record.userId);
    if (switched) record = { ...record, requestedModel: switched.requested };
    // The shared cap scopes (groups, model patterns) it counts toward, fixed on the record.
    record = await withSpendScopes(record, user, services, logger);
    const fingerprint = replyFingerprint(record.userId, args.model, reply.content);
    if (await claimedByOutlet(args, fingerprint)) {
      logger.debug({ messageId: record.messageId }, 'openai-proxy: the accounting outlet already recorded this reply');
      await settleHolds(services.spend, record.userId, [requestReservationId(args.requestId)], logger);
      return record;
    }
    await services.ledger.record(record);
    // A direct caller's spend-limit hold is keyed by this request (its filter chain ran in it): settled now.
    await settleHolds(services.spend, record.userId, [requestReservationId(args.requestId)], logger);
    logger.debug({ messageId: record.messageId, costSource: record.costSource }, 'openai-proxy: usage recorded');
    return record;
  } catch (error) {
    logger.error({ err: errorMessage(error), record }, 'openai-proxy: could not record usage');
    return record;
  }
}

/**
 * The spend-limit inlet's switch to the model this request names (ModelSwitches.claimServed): by the reply's message id
 * when the request carries one (`metadata.message_id`, as a direct caller may send it), else the user's oldest
 * unclaimed switch to this model. Never throws: without it the reply is still recorded, as the model that answered.
 */
async function modelSwitchOf(args: PipeArgs<unknown, unknown>, userId: string): Promise<ModelSwitch | undefined> {
  const switches = provided(args.services, modelSwitchesService);
  if (!switches) return undefined;
  const metadata = args.body.metadata;
  const messageId = isRecord(metadata) && typeof metadata.message_id === 'string' ? metadata.message_id : undefined;
  try {
    const found = await switches.claimServed(userId, args.model, messageId || undefined);
    return found && found.served === args.model && found.requested !== args.model ? found : undefined;
  } catch (error) {
    args.logger.warn(
      { err: errorMessage(error) },
      'openai-proxy: model switch not read; recorded without requestedModel',
    );
    return undefined;
  }
}

/**
 * True when the accounting outlet already recorded this reply. When the claim cannot be read (the store is away), the
 * proxy records it anyway: a reply an outlet also recorded during the outage may count twice, but a direct caller's
 * reply (no outlet) is not lost.
 */
async function claimedByOutlet(args: PipeArgs<unknown, unknown>, fingerprint: string): Promise<boolean> {
  const replies = provided(args.services, replyClaimsService);
  if (!replies) return false;
  try {
    return await replies.claim(fingerprint, 'proxy');
  } catch (error) {
    reportDegraded(args.logger, 'openai-proxy: reply claims unavailable; usage recorded by the proxy', error);
    return false;
  }
}
