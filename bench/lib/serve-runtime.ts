import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../../src/compose.js';
import { keepAliveClient, type KeepAliveClient } from './keep-alive-client.js';

/** A runtime listening on 127.0.0.1, a keep-alive client for it, and one close for both (and its temp directory). */
export interface ServedRuntime {
  port: number;
  client: KeepAliveClient;
  close(): Promise<void>;
}

/** Serves the runtime's app on an ephemeral loopback port; idle keep-alive sockets outlive the client's pauses. */
export async function serveRuntime(runtime: Runtime, apiKey: string, dir: string): Promise<ServedRuntime> {
  const server = runtime.app.listen(0, '127.0.0.1');
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  const client = keepAliveClient(port, apiKey);
  return {
    port,
    client,
    async close() {
      client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
