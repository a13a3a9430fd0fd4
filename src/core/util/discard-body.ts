import type { Readable } from 'node:stream';

/**
 * Stops reading a response body and frees its connection. Destroying an undici body that has not ended emits an
 * AbortError; with no listener that is an uncaught exception (a crash), so one is attached first.
 */
export function discardBody(body: Readable): void {
  body.on('error', () => undefined).destroy();
}
