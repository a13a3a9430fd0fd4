import { extraBody, isOpenRouter, type ProxyValves } from './proxy-valves.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The request sent upstream: every field of the client's body as sent (tools, tool calls,
 * images, sampling parameters…), then the `extra_body` valve, then `model` (the child id) and
 * `stream`. Usage is always asked for: `stream_options.include_usage` on streams, and
 * OpenRouter's `usage.include` (which adds `cost`). Open WebUI's `user` object becomes its id
 * (OpenAI's `user` is a string).
 */
export function upstreamBody(
  body: Record<string, unknown>,
  modelId: string,
  stream: boolean,
  valves: ProxyValves,
): Record<string, unknown> {
  const { user, ...rest } = body;
  const upstream: Record<string, unknown> = { ...rest, ...extraBody(valves), model: modelId, stream };
  const userId = typeof user === 'string' ? user : isRecord(user) && typeof user.id === 'string' ? user.id : undefined;
  if (userId) upstream.user = userId;
  if (stream) {
    const options = isRecord(upstream.stream_options) ? upstream.stream_options : {};
    upstream.stream_options = { ...options, include_usage: true };
  } else delete upstream.stream_options;
  if (isOpenRouter(valves.base_url)) {
    const usage = isRecord(upstream.usage) ? upstream.usage : {};
    upstream.usage = { ...usage, include: true };
  }
  return upstream;
}
