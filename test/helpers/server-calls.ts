import type { ServerProcess } from './server-process.js';

/** A JSON answer of a server process, read field by field in assertions. */
export interface JsonAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers read field by field in assertions
  body: Record<string, any>;
}

/** `call(server, method, route, body?)`: one authenticated JSON request to a server process with `key`. */
export function serverCaller(key: string) {
  return async (server: ServerProcess, method: string, route: string, body?: unknown): Promise<JsonAnswer> => {
    const response = await fetch(`${server.url}${route}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as JsonAnswer['body'] };
  };
}

/**
 * An outlet body in chat `chatId`: a question and the reply `id` with OpenRouter-style usage for `prompt` tokens, and
 * the provider's cost unless `cost: false` (then Eunoe prices the reply from its table).
 */
export function outletWithUsage(chatId: string, id: string, prompt: number, options: { cost?: boolean } = {}) {
  const cost = options.cost === false ? {} : { cost: prompt / 1e7 };
  return {
    model: 'openai/gpt-4o',
    chat_id: chatId,
    id,
    messages: [
      { id: `${id}-q`, role: 'user', content: 'question' },
      {
        id,
        role: 'assistant',
        content: 'answer',
        usage: { prompt_tokens: prompt, completion_tokens: 10, total_tokens: prompt + 10, ...cost },
      },
    ],
  };
}

/**
 * An outlet body in chat `chatId`: the reply `r-1` to `q-1`, 1,200 prompt + 350 completion tokens with the
 * provider's reported cost ($0.0123, OpenRouter-style `usage.cost`).
 */
export function reportedReplyOutlet(chatId: string) {
  return {
    model: 'openai/gpt-4o',
    messages: [
      { id: 'q-1', role: 'user', content: 'Hi' },
      {
        id: 'r-1',
        role: 'assistant',
        content: 'Hello!',
        usage: { prompt_tokens: 1200, completion_tokens: 350, cost: 0.0123 },
      },
    ],
    chat_id: chatId,
    id: 'r-1',
  };
}

/**
 * An outlet body of an earlier reply `id` that cost `cost` USD (OpenRouter-style `usage.cost`, 10 + 5 tokens, no
 * chat): spend a user has already made, before the request a test is about.
 */
export function priorSpendOutlet(id: string, cost: number) {
  return {
    model: 'openai/gpt-4o',
    id,
    messages: [
      { role: 'user', content: 'hi' },
      { id, role: 'assistant', content: 'Hello.', usage: { prompt_tokens: 10, completion_tokens: 5, cost } },
    ],
  };
}
