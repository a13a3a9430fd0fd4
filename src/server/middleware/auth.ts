import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../../errors/index.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Bearer API key check in constant time (both sides hashed to equal length first).
 * Missing header → 401 "Not authenticated"; wrong key → 401 "Invalid API key".
 */
export function requireApiKey(apiKey: string): RequestHandler {
  const expected = digest(apiKey);
  return (request, _response, next) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match) return next(new UnauthorizedError('Not authenticated'));
    if (!timingSafeEqual(digest(match[1]!.trim()), expected)) return next(new UnauthorizedError('Invalid API key'));
    next();
  };
}
