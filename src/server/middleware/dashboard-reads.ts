import type { Request } from 'express';

/**
 * GET paths (after a `/v1` mount) the read-only DASHBOARD_API_KEY may call: what the dashboard's page reads, of the
 * host's routes and of the features' (the dashboard's data, the context feature's runs).
 */
const DASHBOARD_READS = new Set([
  '/usage',
  '/usage/daily',
  '/usage/context',
  '/usage/caps',
  '/usage/unpriced',
  '/status',
  '/health',
  '/pricing/status',
  '/runs',
  // The Open WebUI Function holds no secret (its key is a valve the admin fills in Open WebUI).
  '/integrations/open-webui/function.py',
]);

/** True for a request the read-only dashboard key may make (GET of usage, caps, context statistics, runs, status). */
export function isDashboardRead(request: Request): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  // One run's page (`/runs/:id`) is a read like the listing.
  return DASHBOARD_READS.has(request.path) || /^\/runs\/[^/]+$/.test(request.path);
}
