import { Tiktoken } from 'js-tiktoken/lite';

/** Tokens a chat format adds per message (role, separators), as OpenAI counts them. */
export const PER_MESSAGE_TOKENS = 4;
/** Tokens added once per request (reply priming). */
export const PER_REQUEST_TOKENS = 3;

let encoder: Promise<Tiktoken> | undefined;

/** The o200k_base encoder, loaded once on first use (the rank file is ~2 MB; never at start-up). */
export function loadO200k(): Promise<Tiktoken> {
  encoder ??= import('js-tiktoken/ranks/o200k_base').then((module) => new Tiktoken(module.default));
  return encoder;
}

/** Text of a message's content: strings as is, text parts joined; images and other parts are not counted. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
    .join('\n');
}

/** o200k token count of one text. */
export async function countTokens(text: string): Promise<number> {
  if (!text) return 0;
  return (await loadO200k()).encode(text, [], []).length;
}

/** Estimated prompt tokens of a chat request: every message's text plus the chat-format overhead. */
export async function estimatePromptTokens(messages: readonly unknown[]): Promise<number> {
  const tiktoken = await loadO200k();
  let total = PER_REQUEST_TOKENS;
  for (const message of messages) {
    const text = contentText((message as { content?: unknown } | null)?.content);
    total += PER_MESSAGE_TOKENS + (text ? tiktoken.encode(text, [], []).length : 0);
  }
  return total;
}
