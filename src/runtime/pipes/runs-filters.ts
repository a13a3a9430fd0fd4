import type { IncomingHttpHeaders } from 'node:http';

/** The `PIPE_FILTERS` setting. */
export type PipeFiltersMode = 'auto' | 'always' | 'never';

/**
 * Whether Eunoe runs the filter chain around this pipe call. Open WebUI runs the filters itself
 * (inlet before, outlet after) and, for a pipe model, adds the caller as a `user` **object**
 * (`{id, email, name, role}`) to the body; an OpenAI client sends `user` as a string or not at
 * all. So in `auto` mode the chain runs unless `user` is an object; `X-Eunoe-Filters: run|skip`
 * decides per request (e.g. for a gateway that sends a user object); `always`/`never` force it.
 */
export function runsFilters(
  mode: PipeFiltersMode,
  body: Record<string, unknown>,
  headers: IncomingHttpHeaders,
): boolean {
  if (mode !== 'auto') return mode === 'always';
  const header = String(headers['x-eunoe-filters'] ?? '').toLowerCase();
  if (header === 'run' || header === 'skip') return header === 'run';
  const user = body.user;
  return !(typeof user === 'object' && user !== null && !Array.isArray(user));
}
