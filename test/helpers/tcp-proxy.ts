import net from 'node:net';
import { freePort } from './redis-server.js';

/**
 * A loopback TCP proxy in front of a server (`redis://host:port/…` URLs), which a test can take
 * down and bring back on the same port: the client sees the server vanish (connections cut,
 * new ones refused) and return, as when the server itself stops, without owning the server.
 */
export interface TcpProxy {
  /** `target` with its host and port replaced by the proxy's. */
  url: string;
  /** Cut every connection and stop listening (connections are refused until `start`). */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  start(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const targetUrl = new URL(target);
  const targetHost = targetUrl.hostname;
  const targetPort = Number(targetUrl.port);
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const proxyUrl = new URL(target);
  proxyUrl.hostname = '127.0.0.1';
  proxyUrl.port = String(port);

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const proxy: TcpProxy = {
    url: proxyUrl.toString(),
    start: () =>
      new Promise((resolve, reject) => {
        server = net.createServer((client) => {
          const upstream = net.connect({ host: targetHost, port: targetPort });
          track(client);
          track(upstream);
          client.on('close', () => upstream.destroy());
          upstream.on('close', () => client.destroy());
          client.pipe(upstream);
          upstream.pipe(client);
        });
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      }),
    stop: () =>
      new Promise((resolve) => {
        const running = server;
        server = undefined;
        for (const socket of sockets) socket.destroy();
        sockets.clear();
        if (!running) return resolve();
        running.close(() => resolve());
      }),
  };
  await proxy.start();
  return proxy;
}
