import net from 'node:net';
import { ConfigError } from '../core/errors/index.js';

/**
 * Fail fast when HOST:PORT cannot be listened on (in use, no permission, no such address): bind it and let go,
 * before the state store opens and the filters load. Throws ConfigError with the reason.
 */
export async function assertCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return; // any free port: nothing to check
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ConfigError(
          `cannot listen on ${host}:${port} (${error.code ?? error.message}${error.code === 'EADDRINUSE' ? ': another process uses this port' : ''}). Set PORT or HOST.`,
          { cause: error },
        ),
      ),
    );
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
