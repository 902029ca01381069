import type { ServerResponse } from 'node:http';
import { frame, type Framing } from '../../mcp/frames.js';
import type { Frames } from '../../mcp/listen-fanout.js';
import { setOpeningHeaders } from '../send.js';

/** Server-sent events: each JSON-RPC message one `message` event, its JSON on one data line. */
export const SSE_FRAMING: Framing = { before: 'event: message\ndata: ', after: '\n\n' };

/** The frame of one message as an SSE event. */
export const sseFrame = (message: unknown): string => frame(message, SSE_FRAMING);

export const KEEP_ALIVE_MS = 15_000;

const CRLF = Buffer.from('\r\n', 'latin1');

/** Each frame shared by several streams (frames.ts), as its HTTP/1.1 chunk: made once, kept as long as the frame. */
const chunks = new WeakMap<Uint8Array, Buffer>();

/** A frame as one chunk of a chunked response: its size in hexadecimal, CRLF, the frame, CRLF (RFC 9112, 7.1). */
function chunkOf(frames: Frames): Buffer {
  const shared = typeof frames === 'string' ? undefined : frames;
  const made = shared && chunks.get(shared);
  if (made) return made;
  const bytes = shared ?? Buffer.from(frames);
  const chunk = Buffer.concat([Buffer.from(`${bytes.byteLength.toString(16)}\r\n`, 'latin1'), bytes, CRLF]);
  if (shared) chunks.set(shared, chunk);
  return chunk;
}

/**
 * One server-sent-events response. Frames are JSON-RPC messages; comments
 * keep idle connections alive through proxies. The room never waits on a
 * stream: a reader that does not keep up leaves the socket full, the stream
 * stops taking from its bus queue (see `drained`), the queue fills, and the
 * subscriber is dropped.
 *
 * A frame goes to the socket as one chunk, at once. node's `res.write`
 * writes a chunk in three pieces and sends them a turn of the event loop
 * later, every stream's after every other's: written this way, a change
 * reached the last of 1,000 listening streams sooner (BENCHMARKS.md).
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
    // No Connection header of its own: node says keep-alive to a client that keeps its connection, and close to
    // one that asked to close it (a Connection header set here would keep that client's open after the stream).
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store, no-transform',
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
    // Nothing to send; and an empty chunk would end a chunked response.
    if (this.closed || frames.length === 0) return true;
    // The socket is the response's once node has given it one, and what node wrote of it is there already;
    // a response that is not chunked (an HTTP/1.0 client's) is written as node writes it.
    const socket = this.res.socket;
    if (socket === null || !this.res.chunkedEncoding) return this.res.write(frames);
    return socket.write(chunkOf(frames));
  }

  drained(): Promise<void> {
    const writer = this.res.socket ?? this.res;
    if (this.closed || !writer.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        writer.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      writer.on('drain', done);
      this.res.on('close', done);
    });
  }

  comment(text: string): void {
    this.sendFrame(`: ${text}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepAlive);
    if (!this.res.destroyed) this.res.end();
  }
}
