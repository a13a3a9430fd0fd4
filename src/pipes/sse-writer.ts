import { once } from 'node:events';
import type { Response } from 'express';

/**
 * Writes `data: …\n\n` events as they come: headers go out at `start()`, each event is written
 * (no buffering, Nagle off) and a full socket buffer is waited for (`drain`) instead of piling up.
 */
export class SseWriter {
  private closed = false;
  private corked = false;

  constructor(private readonly response: Response) {
    response.on('close', () => {
      this.closed = true;
    });
  }

  /** False once the client went away. */
  get open(): boolean {
    return !this.closed && !this.response.destroyed;
  }

  start(): void {
    const { response } = this;
    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache');
    response.setHeader('Connection', 'keep-alive');
    // Reverse proxies (nginx) buffer responses unless told not to.
    response.setHeader('X-Accel-Buffering', 'no');
    response.flushHeaders();
    response.socket?.setNoDelay(true);
  }

  /**
   * Send one event; false when the client is gone (stop producing). Events written in the same
   * tick (a burst an upstream sent in one packet) leave in one system call: the socket is corked
   * until the tick ends, which delays nothing that could have left sooner.
   */
  async send(data: string): Promise<boolean> {
    if (!this.open) return false;
    if (!this.corked) {
      this.corked = true;
      this.response.cork();
      process.nextTick(() => {
        this.corked = false;
        this.response.uncork();
      });
    }
    if (!this.response.write(`data: ${data}\n\n`)) {
      await Promise.race([once(this.response, 'drain'), once(this.response, 'close')]);
    }
    return this.open;
  }

  end(): void {
    if (this.open) this.response.end();
  }
}
