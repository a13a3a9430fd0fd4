import { countMessageTokens, loadEncoder, type EncodingName, type PlanResult } from '../../../domain/engine/index.js';

/** First line of the summary block: visible to users and admins, names how much was condensed. */
export function summaryHeader(messageCount: number): string {
  return `[Earlier in this conversation — ${messageCount} message${messageCount === 1 ? '' : 's'} summarized]`;
}

/** The block as a system message: header, then the summaries in their original order. */
export function summaryBlock(messageCount: number, summaries: readonly string[]): { role: 'system'; content: string } {
  return {
    role: 'system',
    content: [summaryHeader(messageCount), ...summaries.map((text) => text.trim())].join('\n\n'),
  };
}

/** Prompt tokens of a message as the engine counts them (× correction, rounded up). */
export function blockTokens(block: unknown, encoding: string, correction = 1): number {
  return Math.ceil(countMessageTokens(block, loadEncoder(encoding as EncodingName)) * correction);
}

/** `text` cut to about `chars` characters at a word boundary, with an ellipsis. */
function cut(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const slice = text.slice(0, Math.max(0, chars));
  const space = slice.lastIndexOf(' ');
  return `${(space > chars * 0.6 ? slice.slice(0, space) : slice).trimEnd()}…`;
}

/**
 * The block fitted into `allowedTokens`: summaries are truncated proportionally when the
 * model wrote more than reserved. Undefined when even a truncated block cannot fit.
 */
export function fitSummaryBlock(
  messageCount: number,
  summaries: readonly string[],
  allowedTokens: number,
  encoding: string,
  correction = 1,
): { block: { role: 'system'; content: string }; tokens: number; truncated: boolean } | undefined {
  let texts = summaries.slice();
  let truncated = false;
  for (let round = 0; round < 12; round++) {
    const block = summaryBlock(messageCount, texts);
    const tokens = blockTokens(block, encoding, correction);
    if (tokens <= allowedTokens) return { block, tokens, truncated };
    const header = blockTokens(
      summaryBlock(
        messageCount,
        texts.map(() => ''),
      ),
      encoding,
      correction,
    );
    const room = allowedTokens - header;
    if (room <= texts.length * 4) return undefined;
    const factor = Math.min(0.9, (room / Math.max(1, tokens - header)) * 0.95);
    texts = texts.map((text) => cut(text, Math.floor(text.length * factor)));
    truncated = true;
  }
  return undefined;
}

/** The plan's messages with `block` inserted at `plan.summaryInsertAt` (after the system prompts). */
export function insertBlock(result: PlanResult, block: unknown): unknown[] {
  const at = Math.min(result.plan.summaryInsertAt, result.messages.length);
  return [...result.messages.slice(0, at), block, ...result.messages.slice(at)];
}
