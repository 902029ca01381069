import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Bus, Subscription } from '../../bus/bus.js';
import type { RoomChange } from '../../engine/index.js';
import { META, McpError, RPC, resultMeta, type RequestId } from './protocol.js';
import { KEEP_ALIVE_MS, SseStream } from './sse.js';
import { DEFAULT_MAX_QUEUE } from '../../bus/bus.js';

export const DEFAULT_MAX_STREAMS_PER_SESSION = 1024;

interface OpenStream {
  sessionId: string;
  requestId: RequestId | null;
  sse: SseStream;
  subscription: Subscription<RoomChange>;
  /** Whether the server ends it with a final JSON-RPC response (listen) or just closes (GET /mcp). */
  listen: boolean;
}

/**
 * Every live stream of the room process: subscriptions/listen responses and
 * legacy GET /mcp streams. Each is one bus subscription; closing the stream
 * ends the subscription and frees it.
 */
export class StreamRegistry {
  private readonly streams = new Set<OpenStream>();
  /** Legacy resources/subscribe: URIs per session. */
  readonly legacySubscriptions = new Map<string, Set<string>>();

  constructor(
    readonly maxPerSession = DEFAULT_MAX_STREAMS_PER_SESSION,
    /** Changes a stream may have waiting before it counts as lagging. */
    readonly maxQueue = DEFAULT_MAX_QUEUE,
    readonly keepAliveMs = KEEP_ALIVE_MS,
  ) {}

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
   * Opens an SSE response fed by a bus subscription. `render` turns a change
   * into the frames this stream sends (none when it is not for it).
   */
  open(options: {
    req: IncomingMessage;
    res: ServerResponse;
    sessionId: string;
    requestId: RequestId | null;
    bus: Bus<RoomChange>;
    /** Which changes this stream takes from the bus (checked when they are published). */
    filter: (change: RoomChange) => boolean;
    first?: unknown;
    render: (change: RoomChange) => unknown[];
  }): void {
    const sse = new SseStream(options.res, this.keepAliveMs);
    const subscription = options.bus.subscribe({ filter: options.filter, maxQueue: this.maxQueue });
    const stream: OpenStream = {
      sessionId: options.sessionId,
      requestId: options.requestId,
      sse,
      subscription,
      listen: options.requestId !== null,
    };
    this.streams.add(stream);
    if (options.first !== undefined) sse.send(options.first);
    const finish = () => {
      this.streams.delete(stream);
      subscription.close();
      sse.end();
    };
    options.req.on('close', finish);
    options.res.on('close', finish);
    subscription.onClose((reason) => {
      if (reason === 'shutdown' && stream.listen) {
        // Ending on purpose: the listen request gets its response first.
        sse.send({
          jsonrpc: '2.0',
          id: stream.requestId,
          result: { resultType: 'complete', _meta: { ...resultMeta(), [META.subscriptionId]: stream.requestId } },
        });
      }
      finish();
    });
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
        stream.subscription.close();
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
    for (const stream of streams) stream.subscription.close('shutdown');
    await Promise.all(flushed);
  }

  get size(): number {
    return this.streams.size;
  }
}
