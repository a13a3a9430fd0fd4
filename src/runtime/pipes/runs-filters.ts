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
  return headerSwitch(headers, 'x-eunoe-filters', 'run', 'skip') ?? !callerIsOpenWebui(body);
}

/** True when the body carries a `user` object: Open WebUI calling one of its Pipelines models (OpenAI's `user` is a string). */
export function callerIsOpenWebui(body: Record<string, unknown>): boolean {
  const user = body.user;
  return typeof user === 'object' && user !== null && !Array.isArray(user);
}

/** A request header that switches something per request: true for `yes`, false for `no`, undefined otherwise. */
export function headerSwitch(headers: IncomingHttpHeaders, name: string, yes: string, no: string): boolean | undefined {
  const value = String(headers[name] ?? '')
    .trim()
    .toLowerCase();
  return value === yes ? true : value === no ? false : undefined;
}
