import type { ManifoldModel } from '../../runtime/pipes/types.js';
import { apiKeyOf, isOpenRouter, type ProxyValves } from './proxy-valves.js';
import type { UpstreamPools } from './upstream.js';

/**
 * The models to offer: the `models` valve's comma list, or else the upstream's `GET /models`
 * (`data[].id`, with `name` when the upstream gives one, as OpenRouter does).
 */
export async function proxyModels(valves: ProxyValves, pools: UpstreamPools): Promise<ManifoldModel[]> {
  const listed = valves.models
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const named = (id: string, name: string) => ({ id, name: `${valves.name_prefix}${name}` });
  if (listed.length) return listed.map((id) => named(id, id));
  // Unconfigured (the default OpenRouter URL and no key): offer nothing rather than call out on every start.
  if (!apiKeyOf(valves) && isOpenRouter(valves.base_url)) return [];
  const response = await pools.request(valves, '/models', { method: 'GET' });
  const body = (await response.body.json()) as { data?: Array<{ id?: unknown; name?: unknown }> };
  return (Array.isArray(body?.data) ? body.data : [])
    .filter((model): model is { id: string; name?: unknown } => typeof model?.id === 'string' && model.id !== '')
    .map((model) => named(model.id, typeof model.name === 'string' && model.name ? model.name : model.id));
}
