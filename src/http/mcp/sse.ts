import type { ServerResponse } from 'node:http';

export const KEEP_ALIVE_MS = 15_000;

/**
 * One server-sent-events response. Frames are JSON-RPC messages; comments
 * keep idle connections alive through proxies. Writes never block the room:
 * a slow reader shows up as its bus queue filling, and is then dropped.
 */
export class SseStream {
  private keepAlive: NodeJS.Timeout;
  private ended = false;
  /** Settles when the response has been flushed or its connection is gone. */
  readonly finished: Promise<void>;

  constructor(
    private readonly res: ServerResponse,
    keepAliveMs = KEEP_ALIVE_MS,
  ) {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    this.finished = new Promise((resolve) => {
      res.once('finish', resolve);
      res.once('close', resolve);
    });
    res.flushHeaders();
    this.keepAlive = setInterval(() => this.comment('keep-alive'), keepAliveMs);
    this.keepAlive.unref();
  }

  get closed(): boolean {
    return this.ended || this.res.destroyed;
  }

  send(message: unknown): void {
    if (this.closed) return;
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  comment(text: string): void {
    if (this.closed) return;
    this.res.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepAlive);
    if (!this.res.destroyed) this.res.end();
  }
}
