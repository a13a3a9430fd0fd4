import {
  countMessageTokens,
  encodingForModel,
  loadEncoder,
  REPLY_PRIMING_TOKENS,
  type TokenCounter,
} from '../engine/index.js';

export { contentText } from '../engine/index.js';

/**
 * Token estimates for accounting, made with the context engine's own counter (same encoder
 * per model, same chat-format overheads), so the learned correction factor actual/estimated
 * applies exactly to what the engine counts. One encoder per process, shared with the engine.
 */

/** The encoder for a model (o200k_base when unknown), loaded once; resolves at once after the first load. */
export function encoderFor(model?: string): Promise<TokenCounter> {
  return Promise.resolve().then(() => loadEncoder(encodingForModel(model).encoding));
}

/** Token count of one text with the model's encoder. */
export async function countTokens(text: string, model?: string): Promise<number> {
  if (!text) return 0;
  return (await encoderFor(model)).count(text);
}

/** Estimated prompt tokens of a chat request, exactly as the context engine counts them (before correction). */
export async function estimatePromptTokens(messages: readonly unknown[], model?: string): Promise<number> {
  const encoder = await encoderFor(model);
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) total += countMessageTokens(message, encoder);
  return total;
}
