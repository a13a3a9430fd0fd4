import net from 'node:net';

/** A raw TCP client to a loopback server: write exact bytes, read what comes back, see the close. */
export interface RawSocket {
  write(data: string | Buffer): void;
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves when the server closes the connection (with everything received). */
  closed: Promise<string>;
  destroy(): void;
}

export async function openRawSocket(port: number): Promise<RawSocket> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let text = '';
  socket.on('data', (chunk) => (text += String(chunk)));
  // The server may reset a connection it closed while we still write: that is a close too.
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  return {
    write: (data) => {
      if (!socket.destroyed) socket.write(data);
    },
    received: () => text,
    closed,
    destroy: () => socket.destroy(),
  };
}

/** The status code and parsed JSON body of a raw HTTP/1.1 response text. */
export function parseRawResponse(text: string): { status: number; headers: string; body: unknown } {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  const rest = end < 0 ? '' : text.slice(end + 4);
  let body: unknown;
  try {
    body = JSON.parse(rest);
  } catch {
    body = rest;
  }
  return { status, headers: head, body };
}
