import type { Request } from 'express';

/** The host's GET paths (after a `/v1` mount) the read-only DASHBOARD_API_KEY may call; features add theirs. */
const HOST_READS = ['/usage', '/health', '/pricing/status'] as const;

/**
 * What the read-only dashboard key may do: GET (or HEAD) the host's reads and those the features declare
 * (`Feature.dashboardReads`: the dashboard's data, the context feature's runs, the Open WebUI Function).
 */
export function dashboardReads(featureReads: readonly (string | RegExp)[]): (request: Request) => boolean {
  const paths = new Set<string>(HOST_READS);
  const patterns: RegExp[] = [];
  for (const read of featureReads) {
    if (typeof read === 'string') paths.add(read);
    else patterns.push(read);
  }
  return (request) =>
    (request.method === 'GET' || request.method === 'HEAD') &&
    (paths.has(request.path) || patterns.some((pattern) => pattern.test(request.path)));
}
