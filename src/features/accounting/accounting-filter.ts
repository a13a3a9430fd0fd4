import { z } from 'zod';
import { FilterError } from '../../core/errors/filter-error.js';
import { defineFilter } from '../../runtime/host/define-filter.js';
import { baseValves } from '../../runtime/host/types.js';
import { buildUsageRecord } from '../../domain/usage/build-usage-record.js';
import { appendUsageLine, formatUsageLine, stripUsageLines } from '../../domain/usage/format-usage-line.js';
import { estimatePromptTokens, encoderFor } from '../../domain/usage/estimate-tokens.js';
import { encodingForModel } from '../../domain/engine/index.js';
import { OutageNotice } from '../../core/util/outage-notice.js';
import { isRecord } from '../../core/messages/chat-message.js';
import { recordedByProxy } from './recorded-by-proxy.js';
import { requestReservationId, settleHolds } from '../../domain/usage/spend-reservations.js';
import { errorMessage } from '../../core/util/error-message.js';
import { baseModelIdOf } from '../../domain/pricing/resolve-model-id.js';
import { lastAssistantMessage } from '../../domain/usage/find-usage.js';
import { formatCostStatus } from '../../domain/usage/cost-status.js';
import { dailyPeriod, monthlyPeriod } from '../../domain/usage/budget-periods.js';
import { decimalOf, parseDecimal } from '../../domain/pricing/decimal.js';
import { provided } from '../../runtime/host/service-registry.js';
import { modelSwitchesService, spendCapsService, type ModelSwitch } from '../../runtime/host/shipped-service-keys.js';
import { withSpendScopes } from '../../runtime/usage/spend-scopes-of.js';
import type { HostServices, PipelineUser } from '../../runtime/host/types.js';
import type { UsageRecord } from '../../domain/usage/types.js';
import type { ScopedState } from '../../state/scoped-state.js';
import type { Logger } from '../../core/util/logger.js';
import type { PricingLookup } from '../../domain/pricing/types.js';

/** How long the inlet's prompt estimate waits for its outlet. */
const ESTIMATE_TTL_MS = 6 * 60 * 60 * 1000;

/** How long the inlet's note of a workspace model's base model waits for the reply's outlet. */
const BASE_MODEL_TTL_MS = 6 * 60 * 60 * 1000;

/** The prompt estimate the inlet stores for the outlet; a stored value of another shape reads as none. */
const promptEstimate = z.object({ model: z.string(), tokens: z.number() });
type PromptEstimate = z.infer<typeof promptEstimate>;

/** Options of the accounting filter (tests inject the clock). */
export interface AccountingOptions {
  now?: () => number;
}

/**
 * The accounting filter. Inlet (priority 100, after the context filter) estimates the prompt
 * it sees and keeps it per chat, and keeps a workspace model's base model per message id (Open WebUI's
 * outlet names only the workspace model); outlet reads the reply's actual usage in every backend shape,
 * prices it (provider's cost → price table → tokenizer estimate), appends one ledger record
 * per message id (idempotent), feeds the engine's per-model token correction, and optionally
 * appends a usage line (`1,234 in · 567 out · $0.0123`; `!+nocost` hides it for a chat).
 */
export function createAccountingFilter(options: AccountingOptions = {}) {
  // Read the clock at each call (not a captured Date.now), so a test clock set on Date applies too.
  const now = options.now ?? (() => Date.now());
  const correctionsOutage = new OutageNotice('the state store (token corrections)');
  const baseModels = new OutageNotice('the state store (workspace base models)');
  return defineFilter({
    name: 'Usage Accounting',
    valves: baseValves.extend({
      priority: z
        .number()
        .int()
        .default(100)
        .describe(
          'Filters run in ascending priority; after the context filter (0) so the estimate sees the final prompt.',
        ),
      show_usage: z.boolean().default(false).describe('Append a usage line (tokens in/out and cost) to every reply'),
      strip_usage_lines: z
        .boolean()
        .default(true)
        .describe('Remove earlier usage lines from the history sent to the model'),
      reject_unrecorded: z
        .boolean()
        .default(false)
        .describe(
          'No effect, kept so saved settings load: a reply whose usage can be kept neither in the store nor in the local journal is always answered 503 (the whole record logged at ERROR)',
        ),
      learn_corrections: z
        .boolean()
        .default(true)
        .describe('Compare the prompt estimate with the actual prompt tokens to correct the context budget per model'),
      show_cost_status: z
        .boolean()
        .default(true)
        .describe(
          "After each reply, a status line with its cost and the user's spend today and this month, of their caps (Open WebUI Function)",
        ),
    }),
    userValves: z.object({
      show_usage: z
        .enum(['default', 'on', 'off'])
        .default('default')
        .describe('Usage line under your replies: "default" follows the admin setting'),
      cost_status: z
        .enum(['default', 'on', 'off'])
        .default('default')
        .describe(
          'Status line with the cost of each reply and your spend today and this month: "default" follows the admin setting',
        ),
    }),
    flags: [{ key: 'nocost', kind: 'boolean', description: 'Hide the usage line for this chat (use !+nocost)' }],

    onStartup() {
      // Load the tokenizer in the background so the first request does not wait for it.
      void encoderFor().catch(() => undefined);
    },

    async inlet({ body: received, valves, state, flags, logger }) {
      const body = valves.strip_usage_lines ? stripUsageLines(received) : received;
      const task = isRecord(body.metadata) ? body.metadata.task : undefined;
      if (!task) await rememberBaseModel(body, state, logger, baseModels);
      if (task || !valves.learn_corrections || !Array.isArray(body.messages) || typeof body.model !== 'string')
        return body;
      // Open WebUI adds RAG context, tool specs and memories after the pipeline inlet; those requests would
      // teach a wrong ratio. Models with an exact local tokenizer (GPT family) need no correction at all.
      if (encodingForModel(body.model).exact || addsContextAfterInlet(body)) return body;
      try {
        const tokens = await estimatePromptTokens(body.messages, body.model);
        await state.set(`estimate:${flags.chatKey}`, { model: body.model, tokens } satisfies PromptEstimate, {
          ttlMs: ESTIMATE_TTL_MS,
        });
      } catch (error) {
        logger.debug({ err: error }, 'accounting: prompt estimate not stored');
      }
      return body;
    },

    async outlet({ body, user, valves, userValves, state, flags, services, logger, requestId, emit, eventsReachUser }) {
      const priceAs = await withRememberedBaseModel(body, state, services.pricing, logger, baseModels);
      let built = await buildUsageRecord({ body: priceAs, user, pricing: services.pricing, now: now() });
      if (!built) return body;
      // The spend-limit inlet sent this reply to a cheaper model: priced and recorded as that one, both ids kept.
      const switched = await modelSwitchOf(services, built.record.messageId, logger);
      if (switched && switched.served !== built.record.model) {
        const served = await buildUsageRecord({
          body: { ...priceAs, model: switched.served },
          user,
          pricing: services.pricing,
          now: now(),
        });
        if (served) built = { ...served, record: { ...served.record, requestedModel: switched.requested } };
      } else if (switched) {
        built = { ...built, record: { ...built.record, requestedModel: switched.requested } };
      }
      // The shared cap scopes (groups, model patterns) it counts toward, fixed on the record (as the model served).
      const record = await withSpendScopes(built.record, user, services, logger);
      if (record.rejectedUsage)
        logger.warn(
          { messageId: record.messageId, rejected: record.rejectedUsage },
          'accounting: usage fields out of bounds were refused and replaced (listed in the record as rejectedUsage)',
        );
      let added = !services.ledger; // Without a ledger there is no repeat detection; still learn corrections.
      // A switched reply was answered (and, through the openai-proxy, claimed) as the model that served it.
      const answered = switched ? { ...body, model: switched.served } : body;
      const byProxy = await recordedByProxy({ body: answered, user, state, services, messageId: record.messageId });
      if (byProxy) {
        added = false;
        logger.debug({ messageId: record.messageId }, 'accounting: the proxy already recorded this reply');
      } else if (services.ledger) {
        try {
          // Resolves once the record is durable: in the store, or in the local journal while Redis is away.
          added = await services.ledger.record(record);
        } catch (error) {
          // Neither the store nor the journal took it (the disk and the journal's reserve full, journal full): never
          // answered as if recorded, whatever `reject_unrecorded` says. The record is only in this line.
          logger.error(
            { err: errorMessage(error), record },
            'accounting: could not record usage (answered 503); the record is in this line',
          );
          throw new FilterError(503, 'Usage could not be recorded; please retry', { code: 'ERR_STATE_UNAVAILABLE' });
        }
      } else {
        logger.warn('accounting: no ledger service; usage is not recorded');
      }
      // Recorded (here or by the proxy): the spend-limit inlet's hold for this reply is settled by the actual cost;
      // a new reply whose ids hold nothing settles the oldest hold of its chat and model, else of a request without a
      // message id.
      await settleHolds(services.spend, record.userId, [record.messageId, requestReservationId(requestId)], logger, {
        orOldestRequestHold: added || byProxy,
        orChat: (added || byProxy) && !record.task ? record.chatId : undefined, // a title task's reply held nothing
        model: record.model, // a reply settles by its chat only a hold of its own model (see HoldChat)
      });
      if (
        added &&
        valves.learn_corrections &&
        record.usageSource === 'reported' &&
        record.promptTokens > 0 &&
        services.corrections
      ) {
        try {
          const estimate = promptEstimate.safeParse(await state.get(`estimate:${flags.chatKey}`)).data;
          if (estimate && estimate.model === record.model && estimate.tokens > 0) {
            await services.corrections.observe(record.model, estimate.tokens, record.promptTokens);
            await state.delete(`estimate:${flags.chatKey}`);
          }
          correctionsOutage.recovered(logger);
        } catch (error) {
          // The record is already kept; only this turn's token correction is skipped.
          correctionsOutage.failed(
            logger,
            error,
            'accounting: token correction skipped, the state store is unavailable (usage is still recorded)',
          );
        }
      }
      logger.debug(
        { messageId: record.messageId, costSource: record.costSource, location: built.location, added },
        'accounting: recorded',
      );
      const status = userValves.cost_status === 'default' ? valves.show_cost_status : userValves.cost_status === 'on';
      // (Over a Pipelines outlet the line would reach nobody: the spend is not read for it.)
      if (status && eventsReachUser && !record.task && !flags.has('nocost')) {
        const line = await costStatus(record, user, services, logger);
        if (line) emit({ type: 'status', data: { description: line, done: true } });
      }
      const show = userValves.show_usage === 'default' ? valves.show_usage : userValves.show_usage === 'on';
      if (!show || flags.has('nocost')) return body;
      return appendUsageLine(body, formatUsageLine(record));
    },
  });
}

/**
 * The cost status line of a recorded reply (formatCostStatus): the user's spend today and this month, one counter read
 * each, and the caps the spend-limit filter's valves put on them when that filter is loaded. Undefined when the ledger
 * cannot be read (the reply is recorded; only the line is skipped).
 */
async function costStatus(
  record: UsageRecord,
  user: PipelineUser | null,
  services: HostServices,
  logger: Logger,
): Promise<string | undefined> {
  if (!services.ledger || !record.userId) return undefined;
  try {
    const at = record.time;
    const day = dailyPeriod(at);
    const month = monthlyPeriod(at);
    const [today, thisMonth, caps] = await Promise.all([
      services.ledger.spent(record.userId, day.from, day.to),
      services.ledger.spent(record.userId, month.from, month.to),
      provided(services, spendCapsService)?.capsFor(
        { id: record.userId, email: user?.email ?? record.userEmail, role: user?.role ?? record.userRole },
        at,
      ) ?? [],
    ]);
    const capOf = (kind: 'daily' | 'monthly') => {
      const limit = caps.find((cap) => cap.kind === kind && !cap.scope)?.limit;
      return limit === undefined ? undefined : (parseDecimal(limit) ?? undefined);
    };
    return formatCostStatus(
      record,
      { spent: parseDecimal(today) ?? decimalOf(0), cap: capOf('daily') },
      { spent: parseDecimal(thisMonth) ?? decimalOf(0), cap: capOf('monthly') },
    );
  } catch (error) {
    logger.debug({ err: errorMessage(error) }, 'accounting: cost status line skipped (spend unreadable)');
    return undefined;
  }
}

/**
 * A workspace model's base model, as the inlet sees it (`metadata.model.info.base_model_id`), kept by the reply's
 * message id (`metadata.message_id`) in the state store: Open WebUI's outlet names only the workspace model
 * (`{model: "acme-assistant", …}`, no metadata), and may reach another replica.
 */
async function rememberBaseModel(
  body: Record<string, unknown>,
  state: ScopedState,
  logger: Logger,
  outage: OutageNotice,
): Promise<void> {
  const baseModelId = baseModelIdOf(body);
  const messageId = isRecord(body.metadata) ? body.metadata.message_id : undefined;
  if (!baseModelId || typeof messageId !== 'string' || !messageId || baseModelId === body.model) return;
  try {
    await state.set(`base:${messageId}`, baseModelId, { ttlMs: BASE_MODEL_TTL_MS });
    outage.recovered(logger);
  } catch (error) {
    outage.failed(
      logger,
      error,
      'accounting: workspace base models not kept; their replies are priced by their own id',
    );
  }
}

/**
 * The outlet body with the base model its inlet kept (see rememberBaseModel), when it names none itself and its model
 * has no price of its own (a table id or an alias): a priced model's outlet reads nothing more.
 */
async function withRememberedBaseModel(
  body: Record<string, unknown>,
  state: ScopedState,
  pricing: PricingLookup | undefined,
  logger: Logger,
  outage: OutageNotice,
): Promise<Record<string, unknown>> {
  if (baseModelIdOf(body) || (typeof body.model === 'string' && pricing?.resolve(body.model))) return body;
  const assistant = lastAssistantMessage(body);
  const messageId = typeof body.id === 'string' && body.id ? body.id : assistant?.id;
  if (typeof messageId !== 'string' || !messageId) return body;
  let baseModelId: unknown;
  try {
    baseModelId = await state.get(`base:${messageId}`);
    outage.recovered(logger);
  } catch (error) {
    outage.failed(
      logger,
      error,
      'accounting: workspace base models unreadable; their replies are priced by their own id',
    );
    return body;
  }
  if (typeof baseModelId !== 'string' || !baseModelId) return body;
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  return { ...body, metadata: { ...metadata, model: { info: { base_model_id: baseModelId } } } };
}

/** True when Open WebUI will add context after the pipeline inlet (files/RAG, tools, web search, memory). */
function addsContextAfterInlet(body: Record<string, unknown>): boolean {
  const nonEmpty = (value: unknown) => Array.isArray(value) && value.length > 0;
  const features = (body.features ?? (body.metadata as { features?: unknown } | undefined)?.features ?? {}) as Record<
    string,
    unknown
  >;
  return nonEmpty(body.files) || nonEmpty(body.tool_ids) || features.web_search === true || features.memory === true;
}

/** The model switch the spend-limit inlet made for the reply `messageId` (ModelSwitches); never throws. */
async function modelSwitchOf(
  services: HostServices,
  messageId: string,
  logger: Logger,
): Promise<ModelSwitch | undefined> {
  const switches = provided(services, modelSwitchesService);
  if (!switches) return undefined;
  try {
    return await switches.find(messageId);
  } catch (error) {
    logger.debug({ err: errorMessage(error) }, 'accounting: model switch not read');
    return undefined;
  }
}
