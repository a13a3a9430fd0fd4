import { markCacheBreakpoint, takeStablePrefix, takesCacheControl } from '../../core/messages/cache-breakpoint.js';
import { extraBody, isOpenRouter, type ProxyValves } from './proxy-valves.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `extra_body` valve parsed and the upstream kind, worked out once per valves object. */
const perValves = new WeakMap<ProxyValves, { extra: Record<string, unknown>; openRouter: boolean }>();

function valvesInfo(valves: ProxyValves): { extra: Record<string, unknown>; openRouter: boolean } {
  let info = perValves.get(valves);
  if (!info) {
    info = { extra: extraBody(valves), openRouter: isOpenRouter(valves.base_url) };
    perValves.set(valves, info);
  }
  return info;
}

/**
 * The request sent upstream: every field of the client's body as sent (tools, tool calls,
 * images, sampling parameters…), then the `extra_body` valve, then `model` (the child id) and
 * `stream`. Usage is always asked for: `stream_options.include_usage` on streams, and
 * OpenRouter's `usage.include` (which adds `cost`). Open WebUI's `user` object becomes its id
 * (OpenAI's `user` is a string). Where the context filter says the prompt's stable prefix ends
 * (`metadata.eunoe_stable_prefix`, never forwarded), the `cache_control` valve marks it for Anthropic
 * models with `cache_control: {"type": "ephemeral"}`; other models never get the field.
 */
export function upstreamBody(
  body: Record<string, unknown>,
  modelId: string,
  stream: boolean,
  valves: ProxyValves,
): Record<string, unknown> {
  const { extra, openRouter } = valvesInfo(valves);
  const { body: clean, stablePrefix } = takeStablePrefix(body);
  const { user, ...rest } = clean;
  // The parsed valve is shared by every request: nothing below changes its nested objects (they are replaced).
  const upstream: Record<string, unknown> = { ...rest, ...extra, model: modelId, stream };
  const userId = typeof user === 'string' ? user : isRecord(user) && typeof user.id === 'string' ? user.id : undefined;
  if (userId) upstream.user = userId;
  if (stream) {
    const options = isRecord(upstream.stream_options) ? upstream.stream_options : {};
    upstream.stream_options = { ...options, include_usage: true };
  } else delete upstream.stream_options;
  if (valves.cache_control && stablePrefix !== undefined && takesCacheControl(modelId) && Array.isArray(rest.messages))
    upstream.messages = markCacheBreakpoint(rest.messages, stablePrefix);
  if (openRouter) {
    const usage = isRecord(upstream.usage) ? upstream.usage : {};
    upstream.usage = { ...usage, include: true };
  }
  return upstream;
}
