import type { ServerResponse } from 'node:http';
import { frame, type Framing } from '../../mcp/frames.js';
import type { Frames } from '../../mcp/listen-fanout.js';
import { setOpeningHeaders } from '../send.js';

/** Server-sent events: each JSON-RPC message one `message` event, its JSON on one data line. */
export const SSE_FRAMING: Framing = { before: 'event: message\ndata: ', after: '\n\n' };

/** The frame of one message as an SSE event. */
export const sseFrame = (message: unknown): string => frame(message, SSE_FRAMING);

export const KEEP_ALIVE_MS = 15_000;

/**
 * One server-sent-events response. Frames are JSON-RPC messages; comments
 * keep idle connections alive through proxies. The room never waits on a
 * stream: a reader that does not keep up leaves the socket full, the stream
 * stops taking from its bus queue (see `drained`), the queue fills, and the
 * subscriber is dropped.
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
    setOpeningHeaders(res);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store, no-transform',
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

  /** False when the socket's buffer is full: wait for `drained()` before sending more. */
  send(message: unknown): boolean {
    return this.sendFrame(sseFrame(message));
  }

  /** Frames already serialized (frames.ts); false as for `send`. */
  sendFrame(frames: Frames): boolean {
    if (this.closed) return true;
    return this.res.write(frames);
  }

  drained(): Promise<void> {
    if (this.closed || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
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
