import type { PricingLookup, CostUsageCounts } from '../pricing/types.js';
import type { UsageRecord } from './types.js';
import { baseModelIdOf } from '../pricing/resolve-model-id.js';
import { contentHash } from '../engine/message-id.js';
import { findUsage, lastAssistantMessage, type UsageLocation } from './find-usage.js';
import { contentText, countTokens, estimatePromptTokens } from './estimate-tokens.js';
import type { NormalizedUsage } from './normalize-usage.js';

type Bag = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/** Inputs of buildUsageRecord. */
export interface BuildUsageRecordOptions {
  body: Bag;
  user: { id?: string; email?: string; role?: string } | null;
  pricing?: PricingLookup;
  now: number;
}

function price(
  pricing: PricingLookup | undefined,
  model: string,
  counts: CostUsageCounts,
  at: number,
  baseModelId?: string,
) {
  if (!pricing) return undefined;
  if (pricing.computeCost) return pricing.computeCost(model, counts, { at, baseModelId });
  const resolved = pricing.resolve(model, { baseModelId });
  const cost = resolved ? pricing.estimateCost(resolved.id, counts) : undefined;
  return resolved && cost !== undefined ? { cost, pricedAs: resolved.id } : undefined;
}

/**
 * Turn an outlet body into one UsageRecord. Cost, in order: the provider's reported cost
 * (OpenRouter `usage.cost`) → usage × price table → tokenizer estimate when the body has no
 * usage at all. `costSource`/`usageSource` say which. Undefined without an assistant message.
 */
export async function buildUsageRecord({
  body,
  user,
  pricing,
  now,
}: BuildUsageRecordOptions): Promise<{ record: UsageRecord; location?: UsageLocation } | undefined> {
  const assistant = lastAssistantMessage(body);
  if (!assistant) return undefined;
  const metadata = (body.metadata ?? {}) as Bag;
  const model = text(body.model) ?? text(assistant.model) ?? 'unknown';
  const chatId = text(body.chat_id) ?? text(metadata.chat_id);
  // Without ids (API callers), the reply's position keeps two identical replies ("OK.") apart.
  const position = Array.isArray(body.messages) ? body.messages.lastIndexOf(assistant) : -1;
  const messageId = text(body.id) ?? text(assistant.id) ?? `hash:${chatId ?? ''}:${position}:${contentHash(assistant)}`;
  const baseModelId = baseModelIdOf(body);
  const found = findUsage(body);
  const common = {
    messageId,
    time: now,
    userId: text(user?.id) ?? 'anonymous',
    ...(text(user?.role) ? { userRole: user!.role } : {}),
    ...(text(user?.email) ? { userEmail: user!.email } : {}),
    ...(chatId ? { chatId } : {}),
    model,
    ...(text(metadata.task) ? { task: metadata.task as string } : {}),
  };
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (found) {
    const usage = await replaceRejected(found.usage, messages, assistant, model);
    const priced = price(pricing, model, usage, now, baseModelId);
    const pricedAs = priced?.pricedAs ?? pricing?.resolve(model, { baseModelId })?.id;
    const cost = usage.reportedCost ?? priced?.cost;
    const record: UsageRecord = {
      ...common,
      ...(pricedAs ? { pricedAs } : {}),
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      reasoningTokens: usage.reasoningTokens,
      totalTokens: usage.totalTokens,
      cost: cost ?? '0',
      costSource: usage.reportedCost !== undefined ? 'reported' : cost !== undefined ? 'computed' : 'unpriced',
      usageSource: usage.estimated ? 'estimated' : 'reported',
      ...(usage.rejected ? { rejectedUsage: usage.rejected } : {}),
    };
    return { record, location: found.location };
  }
  const promptTokens = await estimatePromptTokens(messages.slice(0, messages.lastIndexOf(assistant)), model);
  const completionTokens = await countTokens(contentText(assistant.content), model);
  const priced = price(pricing, model, { promptTokens, completionTokens }, now, baseModelId);
  const record: UsageRecord = {
    ...common,
    ...(priced ? { pricedAs: priced.pricedAs } : {}),
    promptTokens,
    completionTokens,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    totalTokens: promptTokens + completionTokens,
    cost: priced?.cost ?? '0',
    costSource: priced ? 'estimated' : 'unpriced',
    usageSource: 'estimated',
  };
  return { record };
}

/**
 * The reported usage with its refused fields (see USAGE_BOUNDS) replaced: a refused prompt or completion count by the
 * tokenizer's estimate of this request (`estimated`: the usage line shows `~`, no token correction is learned from
 * it), the total recounted; refused cache, reasoning and web-search counts stay 0; a refused cost leaves the price
 * table to price the (bounded) counts.
 */
async function replaceRejected(
  usage: NormalizedUsage,
  messages: unknown[],
  assistant: Bag,
  model: string,
): Promise<NormalizedUsage & { estimated: boolean }> {
  const parts = new Set(usage.rejected?.map((entry) => entry.part));
  if (parts.size === 0) return { ...usage, estimated: false };
  const promptTokens = parts.has('promptTokens')
    ? Math.max(
        usage.promptTokens,
        await estimatePromptTokens(messages.slice(0, messages.lastIndexOf(assistant)), model),
      )
    : usage.promptTokens;
  const completionTokens = parts.has('completionTokens')
    ? Math.max(usage.completionTokens, await countTokens(contentText(assistant.content), model))
    : usage.completionTokens;
  const recount = parts.has('totalTokens') || parts.has('promptTokens') || parts.has('completionTokens');
  return {
    ...usage,
    promptTokens,
    completionTokens,
    totalTokens: recount ? promptTokens + completionTokens : usage.totalTokens,
    estimated: parts.has('promptTokens') || parts.has('completionTokens'),
  };
}
