import { baseValves, defineFilter, z } from '../src/sdk.js';
import { buildUsageRecord } from '../src/usage/build-usage-record.js';
import { appendUsageLine, formatUsageLine, stripUsageLines } from '../src/usage/format-usage-line.js';
import { estimatePromptTokens, encoderFor } from '../src/usage/estimate-tokens.js';
import { encodingForModel } from '../src/engine/index.js';

/** How long the inlet's prompt estimate waits for its outlet. */
const ESTIMATE_TTL_MS = 6 * 60 * 60 * 1000;

interface PromptEstimate {
  model: string;
  tokens: number;
}

/** Options of the accounting filter (tests inject the clock). */
export interface AccountingOptions {
  now?: () => number;
}

/**
 * The accounting filter. Inlet (priority 100, after the context filter) estimates the prompt
 * it sees and keeps it per chat; outlet reads the reply's actual usage in every backend shape,
 * prices it (provider's cost → price table → tokenizer estimate), appends one ledger record
 * per message id (idempotent), feeds the engine's per-model token correction, and optionally
 * appends a usage line (`1,234 in · 567 out · $0.0123`; `!+nocost` hides it for a chat).
 */
export function createAccountingFilter(options: AccountingOptions = {}) {
  const now = options.now ?? Date.now;
  return defineFilter({
    name: 'Usage Accounting',
    valves: baseValves.extend({
      priority: z.number().int().default(100).describe('Filters run in ascending priority; after the context filter (0) so the estimate sees the final prompt.'),
      show_usage: z.boolean().default(false).describe('Append a usage line (tokens in/out and cost) to every reply'),
      strip_usage_lines: z.boolean().default(true).describe('Remove earlier usage lines from the history sent to the model'),
      learn_corrections: z.boolean().default(true).describe('Compare the prompt estimate with the actual prompt tokens to correct the context budget per model'),
    }),
    userValves: z.object({
      show_usage: z.enum(['default', 'on', 'off']).default('default').describe('Usage line under your replies: "default" follows the admin setting'),
    }),
    flags: [{ key: 'nocost', kind: 'boolean', description: 'Hide the usage line for this chat (use !+nocost)' }],

    onStartup() {
      // Load the tokenizer in the background so the first request does not wait for it.
      void encoderFor().catch(() => undefined);
    },

    async inlet({ body: received, valves, state, flags, logger }) {
      const body = valves.strip_usage_lines ? stripUsageLines(received) : received;
      const metadata = (body.metadata ?? {}) as { task?: unknown };
      if (metadata.task || !valves.learn_corrections || !Array.isArray(body.messages) || typeof body.model !== 'string') return body;
      // Open WebUI adds RAG context, tool specs and memories after the pipeline inlet; those requests would
      // teach a wrong ratio. Models with an exact local tokenizer (GPT family) need no correction at all.
      if (encodingForModel(body.model).exact || addsContextAfterInlet(body)) return body;
      try {
        const tokens = await estimatePromptTokens(body.messages, body.model);
        await state.set(`estimate:${flags.chatKey}`, { model: body.model, tokens } satisfies PromptEstimate, { ttlMs: ESTIMATE_TTL_MS });
      } catch (error) {
        logger.debug({ err: error }, 'accounting: prompt estimate not stored');
      }
      return body;
    },

    async outlet({ body, user, valves, userValves, state, flags, services, logger }) {
      const built = await buildUsageRecord({ body, user, pricing: services.pricing, now: now() });
      if (!built) return body;
      const { record } = built;
      let added = !services.ledger; // Without a ledger there is no repeat detection; still learn corrections.
      try {
        if (services.ledger) added = await services.ledger.record(record);
        else logger.warn('accounting: no ledger service; usage is not recorded');
        if (added && valves.learn_corrections && record.usageSource === 'reported' && record.promptTokens > 0 && services.corrections) {
          const estimate = await state.get<PromptEstimate>(`estimate:${flags.chatKey}`);
          if (estimate && estimate.model === record.model && estimate.tokens > 0) {
            await services.corrections.observe(record.model, estimate.tokens, record.promptTokens);
            await state.delete(`estimate:${flags.chatKey}`);
          }
        }
      } catch (error) {
        // Never break the reply because the state backend is away; the record is lost and logged.
        logger.error({ err: error, messageId: record.messageId, cost: record.cost }, 'accounting: could not record usage');
      }
      logger.debug({ messageId: record.messageId, costSource: record.costSource, location: built.location, added }, 'accounting: recorded');
      const show = userValves.show_usage === 'default' ? valves.show_usage : userValves.show_usage === 'on';
      if (!show || flags.has('nocost')) return body;
      return appendUsageLine(body, formatUsageLine(record));
    },
  });
}

/** The shipped accounting filter (real clock). */
export default createAccountingFilter();

/** True when Open WebUI will add context after the pipeline inlet (files/RAG, tools, web search, memory). */
function addsContextAfterInlet(body: Record<string, unknown>): boolean {
  const nonEmpty = (value: unknown) => Array.isArray(value) && value.length > 0;
  const features = (body.features ?? (body.metadata as { features?: unknown } | undefined)?.features ?? {}) as Record<string, unknown>;
  return nonEmpty(body.files) || nonEmpty(body.tool_ids) || features.web_search === true || features.memory === true;
}
