import { EventEmitter } from 'node:events';

/**
 * In-process publish/subscribe for the embedded backend. Delivery is asynchronous (next
 * tick), like Redis. Only this process hears it: several processes on one SQLite file are
 * not supported.
 */
export class LocalChannel {
  private readonly emitter = new EventEmitter();

  /** @param onHandlerError told when a subscriber throws (delivery to the others goes on). */
  constructor(private readonly onHandlerError: (error: unknown, channel: string) => void = () => {}) {
    this.emitter.setMaxListeners(0);
  }

  /** Deliver `message` to this process's subscribers of `channel`. */
  publish(channel: string, message: string): void {
    setImmediate(() => this.emitter.emit(channel, message));
  }

  /** Listen on `channel`; returns an unsubscribe function. A throwing handler does not affect others. */
  subscribe(channel: string, handler: (message: string) => void): () => void {
    const safe = (message: string) => {
      try {
        handler(message);
      } catch (error) {
        this.onHandlerError(error, channel);
      }
    };
    this.emitter.on(channel, safe);
    return () => this.emitter.off(channel, safe);
  }

  /** Drop every subscriber. */
  clear(): void {
    this.emitter.removeAllListeners();
  }
}
