import type http from 'node:http';
import { readFileSync } from 'node:fs';
import { listenOnLoopback } from '../../helpers/loopback-server.js';

/** The real 2025-12-02 capture of OpenRouter's /api/v1/models (335 models). */
export const CAPTURE = JSON.parse(
  readFileSync(new URL('../../../pricing/openrouter-snapshot.json', import.meta.url), 'utf8'),
) as { data: Array<Record<string, unknown>> };

/** A loopback HTTP server standing in for OpenRouter; `handler` decides each response. */
export async function startOpenRouter(
  handler: (request: http.IncomingMessage, response: http.ServerResponse, count: number) => void,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0;
  const loopback = await listenOnLoopback((request, response) => handler(request, response, ++count));
  return { url: `${loopback.origin}/api/v1/models`, requests: () => count, close: loopback.close };
}

/** Send a JSON body the way OpenRouter does. */
export function sendJson(response: http.ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** A `/models` body with the first `count` models of the capture, in the current envelope. */
export function modelList(
  count = CAPTURE.data.length,
  mutate?: (model: Record<string, unknown>) => Record<string, unknown>,
) {
  const data = CAPTURE.data.slice(0, count).map((model) => (mutate ? mutate(structuredClone(model)) : model));
  return { data, total_count: data.length, links: { next: null } };
}
