import type { Response } from 'express';

/**
 * Writes `data: …\n\n` events as they come: the headers leave with the first event (one packet),
 * each event is written (no buffering, Nagle off) and a full socket buffer is waited for
 * (`drain`) instead of piling up.
 */
export class SseWriter {
  private closed = false;
  private ended = false;
  private corked = false;

  constructor(private readonly response: Response) {
    response.on('close', () => {
      this.closed = true;
    });
  }

  /** False once the client went away or the answer ended. */
  get open(): boolean {
    return !this.closed && !this.ended && !this.response.destroyed;
  }

  /** Sets the status and headers; they are sent with the first event, in the same packet. */
  start(): void {
    const { response } = this;
    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache');
    response.setHeader('Connection', 'keep-alive');
    // Reverse proxies (nginx) buffer responses unless told not to.
    response.setHeader('X-Accel-Buffering', 'no');
    response.socket?.setNoDelay(true);
  }

  /** Send one event; false when the client is gone (stop producing). */
  send(data: string): Promise<boolean> | boolean {
    return this.write(`data: ${data}\n\n`);
  }

  /** Send already framed events (`data: …\n\n` …) as they are: one piece is one write, nothing to join. */
  sendFrames(frames: Uint8Array | string): Promise<boolean> | boolean {
    if (!this.open) return false;
    if (this.response.write(frames)) return true;
    return this.drained();
  }

  /** Send the last event and end the answer, in one write. */
  finish(data: string): void {
    if (!this.open) return;
    this.ended = true;
    this.response.end(`data: ${data}\n\n`);
  }

  /**
   * Events written in the same tick (a burst a pipe yields at once) leave in one system call: the
   * socket is corked until the tick ends, which delays nothing that could have left sooner.
   */
  private write(chunk: Uint8Array | string): Promise<boolean> | boolean {
    if (!this.open) return false;
    if (!this.corked) {
      this.corked = true;
      this.response.cork();
      process.nextTick(() => {
        this.corked = false;
        this.response.uncork();
      });
    }
    if (this.response.write(chunk)) return true;
    return this.drained();
  }

  /**
   * Resolves once the socket buffer has room again (true) or the client went away (false). Both
   * listeners are removed when it resolves: a slow client's many waits leave nothing behind.
   */
  private drained(): Promise<boolean> {
    const { response } = this;
    return new Promise((resolve) => {
      const settle = () => {
        response.off('drain', settle);
        response.off('close', settle);
        resolve(this.open);
      };
      response.on('drain', settle);
      response.on('close', settle);
    });
  }

  end(): void {
    if (!this.open) return;
    this.ended = true;
    this.response.end();
  }
}
