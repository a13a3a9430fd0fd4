import type { RequestHandler } from 'express';
import { ValidationError } from '../../core/errors/index.js';

/**
 * Refuses query parameters a route does not read: `GET /usage?user_id=u1` (the parameter is `user`) would
 * otherwise answer every user's records as if no filter were asked for. A 400 names each unknown parameter and
 * lists the known ones.
 *
 * @example router.get('/usage', knownQuery('user', 'model'), handler)
 */
export function knownQuery(...names: string[]): RequestHandler {
  const known = new Set(names);
  return (request, _response, next) => {
    const unknown = Object.keys(request.query).filter((name) => !known.has(name));
    if (unknown.length === 0) return next();
    const list = unknown.map((name) => JSON.stringify(name)).join(', ');
    const accepted = names.length ? `known: ${names.join(', ')}` : 'this route takes none';
    next(
      new ValidationError(
        `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${list} (${accepted})`,
        unknown.map((name) => ({ path: name, message: 'unknown query parameter' })),
      ),
    );
  };
}
