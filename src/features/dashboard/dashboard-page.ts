import { readFileSync } from 'node:fs';
import { Router, type Request, type Response } from 'express';

const PUBLIC = new URL('./public/', import.meta.url);

/** The page's files: name → content type. Nothing else under /dashboard is served. */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
  'runs.js': 'text/javascript; charset=utf-8',
  'runs.css': 'text/css; charset=utf-8',
};

/** Only the page's own files, scripts and data: no CDN, no inline script, no framing. */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

/**
 * `GET /dashboard`: the single-page dashboard, static files shipped in the package (no build
 * step, no CDN, works offline). Public: the page asks for the API key itself and sends it as a
 * Bearer header to the JSON endpoints (dashboard-data-routes.ts). Mounted by the dashboard feature's `publicRoutes`.
 */
export function dashboardPageRouter(): Router {
  const router = Router();
  const files = new Map(
    Object.entries(FILES).map(([name, type]) => [name, { type, body: readFileSync(new URL(name, PUBLIC)) }]),
  );
  const send = (name: string) => (_request: Request, response: Response) => {
    const file = files.get(name)!;
    response.set(SECURITY_HEADERS).type(file.type).send(file.body);
  };
  router.get(['/dashboard', '/dashboard/'], send('index.html'));
  for (const name of files.keys()) if (name !== 'index.html') router.get(`/dashboard/${name}`, send(name));
  return router;
}
