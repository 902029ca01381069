import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Bus, CloseReason } from '../../bus/bus.js';
import type { RoomChange, RoomView } from '../../engine/index.js';
import { ListenFanout, type ListenWatch } from './listen-fanout.js';
import { META, McpError, RPC, resultMeta, type RequestId } from './protocol.js';
import { KEEP_ALIVE_MS, SseStream } from './sse.js';
import { DEFAULT_MAX_QUEUE } from '../../bus/bus.js';

export const DEFAULT_MAX_STREAMS_PER_SESSION = 1024;

interface OpenStream {
  sessionId: string;
  /** The listen request's id; null for a GET /mcp stream. */
  requestId: RequestId | null;
  sse: SseStream;
  close(reason?: CloseReason): void;
}

/**
 * Every live stream of the room process: subscriptions/listen responses,
 * fed by one fan-out on the bus (listen-fanout.ts), and legacy GET /mcp
 * streams, each one bus subscription. Closing a stream frees its place.
 */
export class StreamRegistry {
  private readonly streams = new Set<OpenStream>();
  /** Legacy resources/subscribe: URIs per session. */
  readonly legacySubscriptions = new Map<string, Set<string>>();
  private readonly fanout: ListenFanout;

  constructor(
    private readonly bus: Bus<RoomChange>,
    uris: Record<RoomView, string>,
    readonly maxPerSession = DEFAULT_MAX_STREAMS_PER_SESSION,
    /** Changes a stream may have waiting before it counts as lagging. */
    readonly maxQueue = DEFAULT_MAX_QUEUE,
    readonly keepAliveMs = KEEP_ALIVE_MS,
  ) {
    this.fanout = new ListenFanout({ uris, maxQueue });
  }

  countFor(sessionId: string): number {
    let n = 0;
    for (const stream of this.streams) if (stream.sessionId === sessionId) n++;
    return n;
  }

  checkRoom(sessionId: string): void {
    if (this.countFor(sessionId) >= this.maxPerSession) {
      throw new McpError(
        429,
        RPC.limitReached,
        `this session already has ${this.maxPerSession} open streams, the most it may hold; close one first`,
      );
    }
  }

  /**
   * Opens a subscriptions/listen response: `first` (the acknowledgement),
   * then the notifications of what `watch` follows, until the client closes
   * it or cancels the request, it lags, or the room stops (then it gets its
   * final response).
   */
  openListen(options: {
    req: IncomingMessage;
    res: ServerResponse;
    sessionId: string;
    requestId: RequestId;
    watch: ListenWatch;
    first: unknown;
  }): void {
    const sse = new SseStream(options.res, this.keepAliveMs);
    const { requestId } = options;
    const member = this.fanout.add(requestId, options.watch, sse, (reason) => {
      if (reason === 'shutdown') {
        // Ending on purpose: the listen request gets its response first.
        sse.send({
          jsonrpc: '2.0',
          id: requestId,
          result: { resultType: 'complete', _meta: { ...resultMeta(), [META.subscriptionId]: requestId } },
        });
      }
      this.streams.delete(stream);
      if (this.fanout.size === 0) this.bus.detach(this.fanout);
      sse.end();
    });
    const stream: OpenStream = {
      sessionId: options.sessionId,
      requestId,
      sse,
      close: (reason) => member.close(reason),
    };
    this.streams.add(stream);
    this.bus.attach(this.fanout);
    sse.send(options.first);
    options.req.on('close', () => member.close());
    options.res.on('close', () => member.close());
  }

  /**
   * Opens a legacy GET /mcp SSE response fed by its own bus subscription.
   * `render` turns a change into the frames this stream sends (none when it
   * is not for it).
   */
  open(options: {
    req: IncomingMessage;
    res: ServerResponse;
    sessionId: string;
    /** Which changes this stream takes from the bus (checked when they are published). */
    filter: (change: RoomChange) => boolean;
    render: (change: RoomChange) => unknown[];
  }): void {
    const sse = new SseStream(options.res, this.keepAliveMs);
    const subscription = this.bus.subscribe({ filter: options.filter, maxQueue: this.maxQueue });
    const stream: OpenStream = {
      sessionId: options.sessionId,
      requestId: null,
      sse,
      close: (reason) => subscription.close(reason),
    };
    this.streams.add(stream);
    const finish = () => {
      this.streams.delete(stream);
      subscription.close();
      sse.end();
    };
    options.req.on('close', finish);
    options.res.on('close', finish);
    subscription.onClose(finish);
    void (async () => {
      for await (const change of subscription) {
        let room = true;
        for (const frame of options.render(change)) room = sse.send(frame) && room;
        // A full socket: stop taking changes until it drains; meanwhile the bus queue fills.
        if (!room) await sse.drained();
      }
    })();
  }

  /** notifications/cancelled for a listen request ends that stream. */
  cancel(sessionId: string, requestId: RequestId): boolean {
    for (const stream of this.streams) {
      if (stream.sessionId === sessionId && stream.requestId === requestId) {
        stream.close();
        return true;
      }
    }
    return false;
  }

  /**
   * The room process is stopping: every listen gets its final response, then
   * every stream ends. Resolves once every response has been flushed.
   */
  async closeAll(): Promise<void> {
    const streams = [...this.streams];
    const flushed = streams.map((stream) => stream.sse.finished);
    for (const stream of streams) stream.close('shutdown');
    await Promise.all(flushed);
  }

  get size(): number {
    return this.streams.size;
  }
}
