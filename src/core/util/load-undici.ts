/**
 * undici, imported on first use: it is a large module graph, and most processes and filter worker threads never make
 * an outgoing request (the proxy, the summarizer, filter downloads and the price refresh are the ones that do).
 */
let undici: Promise<typeof import('undici')> | undefined;

export function loadUndici(): Promise<typeof import('undici')> {
  undici ??= import('undici');
  return undici;
}
