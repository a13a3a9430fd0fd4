import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

/** Requests whose `Expect: 100-continue` the server has not answered yet (see createHttpServer). */
const waiting = new WeakSet<IncomingMessage>();

/** Called by the server for `Expect: 100-continue`: hold the "100 Continue" until the key is checked. */
export function deferContinue(request: IncomingMessage): void {
  waiting.add(request);
}

/**
 * After the API key check: invite the client to send its body ("100 Continue"), once. A client
 * without a valid key never gets the invitation: its 401 comes instead, before any body byte.
 */
export const sendContinue: RequestHandler = (request, response, next) => {
  if (waiting.delete(request) && !response.headersSent) response.writeContinue();
  next();
};
