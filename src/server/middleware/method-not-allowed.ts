import { Router, type RequestHandler } from 'express';
import { MethodNotAllowedError } from '../../core/errors/index.js';

/** One route a router answers: its path pattern (express 5 syntax) and its methods (upper case). */
export interface RouteEntry {
  path: string;
  methods: string[];
}

/** The parts of express 5's router internals (`router` 2.x) the route table is read from. */
interface StackLayer {
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  rawPath?: unknown;
  handle?: { stack?: StackLayer[] };
}

function joinPath(prefix: string, path: string): string {
  const joined = `${prefix.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  return joined.length > 1 ? joined.replace(/\/+$/, '') : joined;
}

function stringPaths(path: unknown, where: string): string[] {
  const paths = Array.isArray(path) ? path.flat(Infinity) : [path];
  for (const entry of paths) {
    if (typeof entry !== 'string')
      throw new TypeError(
        `route table: ${where} has a non-string path (${String(entry)}); only string patterns are supported`,
      );
  }
  return paths as string[];
}

/**
 * Every route of `router`, nested routers included (mounted paths prefixed), read once from
 * its stack: one entry per path, with the union of the methods registered on it. Catch-all
 * routes (`router.all`) answer every method and are left out.
 */
export function routeTable(router: { stack: unknown[] }, prefix = '/'): RouteEntry[] {
  const byPath = new Map<string, Set<string>>();
  const visit = (stack: StackLayer[], base: string) => {
    for (const layer of stack) {
      if (layer.route) {
        if (layer.route.methods._all) continue;
        const methods = Object.keys(layer.route.methods)
          .filter((method) => layer.route?.methods[method])
          .map((method) => method.toUpperCase());
        for (const path of stringPaths(layer.route.path, `a route under ${base}`)) {
          const key = joinPath(base, path);
          const known = byPath.get(key) ?? new Set<string>();
          for (const method of methods) known.add(method);
          byPath.set(key, known);
        }
      } else if (layer.handle?.stack) {
        for (const path of stringPaths(layer.rawPath ?? '/', `a router mounted under ${base}`))
          visit(layer.handle.stack, joinPath(base, path));
      }
    }
  };
  visit(router.stack as StackLayer[], prefix);
  return [...byPath].map(([path, methods]) => ({ path, methods: [...methods].sort() }));
}

/** The `Allow` value for these methods: HEAD wherever GET is (express answers it from the GET route). */
function allowHeader(methods: Iterable<string>): string {
  const allowed = new Set(methods);
  if (allowed.has('GET')) allowed.add('HEAD');
  return [...allowed].sort().join(', ');
}

/**
 * Mount after the routes of `table`: a request whose path matches one of them but whose method
 * none of them answers is a 405 `{"detail": "Method Not Allowed"}` with an `Allow` header naming
 * the methods of every matching route; any other request passes on (to the 404).
 */
export function methodNotAllowed(table: RouteEntry[]): Router {
  const router = Router();
  for (const entry of table) {
    const collect: RequestHandler = (_request, response, next) => {
      const allowed = (response.locals.allowedMethods ??= new Set<string>()) as Set<string>;
      for (const method of entry.methods) allowed.add(method);
      next();
    };
    router.all(entry.path, collect);
  }
  router.use((_request, response, next) => {
    const allowed = response.locals.allowedMethods as Set<string> | undefined;
    if (!allowed) return next();
    delete response.locals.allowedMethods;
    response.setHeader('Allow', allowHeader(allowed));
    next(new MethodNotAllowedError());
  });
  return router;
}
