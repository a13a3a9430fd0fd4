import http from 'node:http';
import type { RequestListener } from 'node:http';
import { listenOnLoopback } from '../../helpers/loopback-server.js';

/** `data:` payloads of an SSE text, in order. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event.startsWith('data:'))
    .map((event) => event.slice(5).trim());
}

/** The concatenated `delta.content` of the JSON events of an SSE text. */
export function sseContent(text: string): string {
  return sseData(text)
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> })
    .map((chunk) => chunk.choices?.[0]?.delta?.content ?? '')
    .join('');
}

/** Serve an app (express) on 127.0.0.1:<free port> over real HTTP (the suite's loopback server). */
export async function listen(app: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const served = await listenOnLoopback(app);
  return { url: served.origin, close: served.close };
}

/**
 * POST a JSON body and read the response incrementally: `onData` sees each piece as it arrives
 * and may return true to stop reading (the connection is then destroyed, like a client going away).
 */
export function postStream(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  onData: (received: string) => unknown,
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => {
          text += piece;
          if (onData(text) === true) {
            request.destroy();
            resolve({ status: response.statusCode ?? 0, text, headers: response.headers });
          }
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text, headers: response.headers }));
        response.on('error', () => resolve({ status: response.statusCode ?? 0, text, headers: response.headers }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}
