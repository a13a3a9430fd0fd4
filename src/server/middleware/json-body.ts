import express, { type RequestHandler } from 'express';
import { ValidationError } from '../../errors/index.js';
import { jsonDepthExceeds } from '../../util/json-depth.js';

/**
 * The JSON body parser: at most `limit` bytes, and nested at most `maxDepth` arrays/objects
 * deep. Depth is checked on the raw bytes before `JSON.parse`, so a hostile body (200k nested
 * arrays) is a 400 and never reaches recursive code (zod, JSON.stringify) that would overflow.
 * Mounted after the API key check: an unauthenticated body is never read.
 */
export function jsonBody(options: { limit: number; maxDepth: number }): RequestHandler {
  return express.json({
    limit: options.limit,
    verify: (_request, _response, raw, encoding) => {
      const text = encoding && !/^utf-?8$/i.test(encoding) ? decode(raw, encoding) : raw;
      if (jsonDepthExceeds(text, options.maxDepth)) {
        throw new ValidationError(`JSON body nested deeper than ${options.maxDepth} levels (JSON_MAX_DEPTH)`);
      }
    },
  });
}

/** Body text in a non-UTF-8 charset (utf-16), for the depth scan. */
function decode(raw: Buffer, encoding: string): string {
  try {
    return new TextDecoder(encoding).decode(raw);
  } catch {
    throw new ValidationError(`Unsupported charset for a JSON body: ${encoding} (send UTF-8)`);
  }
}
