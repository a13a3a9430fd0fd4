import { normalizeUsage, type NormalizedUsage } from './normalize-usage.js';

type Bag = Record<string, unknown>;
const isBag = (value: unknown): value is Bag => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where on the outlet body the usage was found. */
export type UsageLocation = 'message.usage' | 'message.info.usage' | 'body.usage' | 'message.info' | 'message.timings';

/** The last assistant message of `body.messages` (the new reply), if any. */
export function lastAssistantMessage(body: Bag): Bag | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (isBag(message) && message.role === 'assistant') return message;
  }
  return undefined;
}

/**
 * Find and normalise the actual usage of the new assistant message on an outlet body. Looks,
 * in order, at the message's `usage` (Open WebUI 0.11's inline outlet puts it there, merged over the reply's tool
 * loop, and mirrors it in `info.usage`), its `info.usage` (Open WebUI ≥ 0.10 inline outlet), the
 * body's top-level `usage`, legacy `info` fields (pre-0.5 Ollama stats, `{...usage, openai: true}`)
 * and llama.cpp `timings`. The two copies are one usage: only the first found is read, never both.
 */
export function findUsage(body: Bag): { usage: NormalizedUsage; location: UsageLocation } | undefined {
  const message = lastAssistantMessage(body) ?? {};
  const info = isBag(message.info) ? message.info : undefined;
  const candidates: Array<[UsageLocation, unknown]> = [
    ['message.usage', message.usage],
    ['message.info.usage', info?.usage],
    ['body.usage', body.usage],
    ['message.info', info],
    ['message.timings', isBag(message.timings) ? { timings: message.timings } : undefined],
  ];
  for (const [location, candidate] of candidates) {
    const usage = normalizeUsage(candidate);
    if (usage) return { usage, location };
  }
  return undefined;
}
