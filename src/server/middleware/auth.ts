import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { ReadOnlyKeyError, UnauthorizedError } from '../../core/errors/index.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Options of requireApiKey. */
export interface ApiKeyOptions {
  /** A second, read-only key (DASHBOARD_API_KEY): accepted only where `readOnly(request)` is true. */
  readOnlyKey?: string;
  /** True for the requests the read-only key may make. */
  readOnly?: (request: Request) => boolean;
}

/**
 * Bearer API key check in constant time (both sides hashed to equal length first).
 * Missing header → 401 "Not authenticated"; wrong key → 401 "Invalid API key"; the read-only
 * key on anything but a read it allows → 403 (ERR_READ_ONLY).
 */
export function requireApiKey(apiKey: string, options: ApiKeyOptions = {}): RequestHandler {
  const expected = digest(apiKey);
  const readOnly = options.readOnlyKey ? digest(options.readOnlyKey) : undefined;
  return (request, _response, next) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match) return next(new UnauthorizedError('Not authenticated'));
    const given = digest(match[1]!.trim());
    if (timingSafeEqual(given, expected)) return next();
    if (readOnly && timingSafeEqual(given, readOnly)) {
      if (options.readOnly?.(request)) return next();
      return next(new ReadOnlyKeyError());
    }
    next(new UnauthorizedError('Invalid API key'));
  };
}
