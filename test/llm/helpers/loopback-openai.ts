import { listenOnLoopback } from '../../helpers/loopback-server.js';

/** One request the loopback model server received. */
export interface SeenRequest {
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: a wire body read field by field in assertions, without a schema
  body: any;
  authorization?: string;
}

/** How the server answers one request. */
export interface Reply {
  status?: number;
  json?: unknown;
  /** Raw body (garbage tests); wins over `json`. */
  text?: string;
  headers?: Record<string, string>;
  /** Wait before answering (slow model). */
  delayMs?: number;
}

/** Decides the reply to request number `n` (0-based, over all requests). */
export type Script = (request: SeenRequest, n: number) => Reply | Promise<Reply>;

/** A chat-completions answer holding `content`. */
export function chatReply(content: string): Reply {
  return {
    json: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

/** A deterministic embedding: word hashes folded into 32 dimensions (similar words → similar vectors). */
export function bagOfWords(text: string): number[] {
  const vector = new Array(32).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]{3,}/g) ?? []) {
    let hash = 0;
    for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
    vector[hash % 32] += 1;
  }
  return vector;
}

/** An embeddings answer for `inputs` (bag-of-words vectors), listed in reverse order to test index handling. */
export function embeddingReply(inputs: string[]): Reply {
  return {
    json: {
      object: 'list',
      data: inputs.map((input, index) => ({ object: 'embedding', index, embedding: bagOfWords(input) })).reverse(),
      model: 'e',
    },
  };
}

/** The transcript part of a summary request (what the summarizer was asked to condense). */
export function summaryInput(request: SeenRequest): string {
  return String(request.body?.messages?.at(-1)?.content ?? '');
}

/** A loopback HTTP server speaking the OpenAI chat and embeddings wire format, answering as `script` says. */
export interface LoopbackServer {
  url: string;
  requests: SeenRequest[];
  script: Script;
  /** Requests to /chat/completions so far. */
  chatCalls(): number;
  embeddingCalls(): number;
  /** Most requests in flight at once. */
  maxInFlight: number;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 at a free port. The default script answers chats with "ok" and embeds by bag of words. */
export async function startLoopback(script?: Script): Promise<LoopbackServer> {
  let inFlight = 0;
  const state: LoopbackServer = {
    url: '',
    requests: [],
    maxInFlight: 0,
    script:
      script ??
      ((request) => (request.path.endsWith('/embeddings') ? embeddingReply(request.body.input) : chatReply('ok'))),
    chatCalls: () => state.requests.filter((request) => request.path.endsWith('/chat/completions')).length,
    embeddingCalls: () => state.requests.filter((request) => request.path.endsWith('/embeddings')).length,
    close: async () => {},
  };
  const loopback = await listenOnLoopback((incoming, response) => {
    let raw = '';
    incoming.on('data', (chunk) => (raw += chunk));
    incoming.on('end', async () => {
      inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      const seen: SeenRequest = {
        path: incoming.url ?? '',
        body: raw ? JSON.parse(raw) : undefined,
        authorization: incoming.headers.authorization,
      };
      const n = state.requests.push(seen) - 1;
      try {
        const reply = await state.script(seen, n);
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        if (response.destroyed) return;
        response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        response.end(reply.text ?? JSON.stringify(reply.json ?? {}));
      } finally {
        inFlight -= 1;
      }
    });
  });
  state.url = `${loopback.origin}/v1`;
  state.close = loopback.close;
  return state;
}
