import { SentinelConnector, type SentinelConnectionOptions } from 'ioredis';

/** The parts of ioredis' SentinelConnector this file builds on (private in its types). */
interface ConnectorInternals {
  connecting: boolean;
  connectToSentinel(endpoint: unknown, options?: unknown): { on(event: 'error', listener: () => void): unknown };
  initFailoverDetector(): Promise<void>;
}

/**
 * ioredis' Sentinel connector, with its failover detector's connections to the sentinels made quiet and bounded:
 * - they get an error listener: with one sentinel of three down (routine: that is why there are three) each of them
 *   printed ioredis' raw `[ioredis] Unhandled error event` with a stack to stderr, at start-up and at every retry. A
 *   sentinel being down changes nothing for Eunoe while one answers; the data connection's outages are logged once by
 *   the outage monitor;
 * - no detector starts for a connection closed while its socket was still connecting: `disconnect()` ends that
 *   socket, which connects all the same, and the detector it then started held a connection to every sentinel that
 *   nothing would close.
 */
export class QuietSentinelConnector extends SentinelConnector {
  /** ioredis passes the client's options (`Connector` option), as it does to its own SentinelConnector. */
  constructor(options: unknown) {
    super(options as SentinelConnectionOptions);
  }
}

const base = SentinelConnector.prototype as unknown as ConnectorInternals;
const quiet = QuietSentinelConnector.prototype as unknown as ConnectorInternals;

quiet.connectToSentinel = function (this: ConnectorInternals, endpoint, options) {
  const client = base.connectToSentinel.call(this, endpoint, options);
  client.on('error', () => {}); // the detector reconnects on its own (ioredis' sentinelReconnectStrategy)
  return client;
};

quiet.initFailoverDetector = async function (this: ConnectorInternals) {
  if (!this.connecting) return; // disconnected meanwhile
  await base.initFailoverDetector.call(this);
};
