import http from 'node:http';

/** A POST client over one keep-alive connection: much thinner than fetch (undici adds ms per request). */
export interface KeepAliveClient {
  post(path: string, payload: string): Promise<{ status: number; text: string }>;
  close(): void;
}

/** A client for 127.0.0.1:`port` sending JSON with `Bearer apiKey`. */
export function keepAliveClient(port: number, apiKey: string): KeepAliveClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    post: (path, payload) =>
      new Promise((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            path,
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(payload),
              authorization: `Bearer ${apiKey}`,
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
            );
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(payload);
      }),
    close: () => agent.destroy(),
  };
}
