import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Bus, BusSink, CloseReason } from '../../bus/bus.js';
import { sessionsEndedBy, type RoomChange, type RoomView } from '../../engine/index.js';
import { Refusal } from '../refusal.js';
import { ListenFanout, type ListenWatch } from '../../mcp/listen-fanout.js';
import { META, refusal, RPC, resultMeta, type RequestId } from '../../mcp/protocol.js';
import { streamsWithin } from '../open-files.js';
import { KEEP_ALIVE_MS, SSE_FRAMING, SseStream } from './sse.js';
import { sessionEnded, type StreamOwner } from './stream-owner.js';
import { DEFAULT_MAX_QUEUE } from '../../bus/bus.js';
import {
  DEFAULT_MAX_STREAMS,
  DEFAULT_MAX_STREAMS_PER_SESSION,
  EXPIRY_CHECK_MS,
  type OpenStream,
  type StreamKind,
  type StreamLimits,
} from './stream-kinds.js';

/** What a client refused for the room's stream cap is told to wait, in seconds. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Every live stream of the room process: subscriptions/listen responses,
 * fed by one fan-out on the bus (listen-fanout.ts), and legacy GET /mcp
 * streams, each one bus subscription. Closing a stream frees its place.
 * A session ends everywhere at once: its revocation or its participant's
 * removal closes its streams as the change is published, and its expiry
 * within EXPIRY_CHECK_MS; a stream never delivers for a session that ended.
 */
export class StreamRegistry {
  private readonly streams = new Set<OpenStream>();
  private readonly fanout: ListenFanout;
  private expiryCheck: NodeJS.Timeout | null = null;
  readonly maxPerSession: number;
  readonly maxStreams: number;
  /** The open-file limit that holds maxStreams below what the room was asked for; null when none does. */
  private readonly heldByOpenFiles: number | null;
  readonly maxQueue: number;
  readonly keepAliveMs: number;
  /** Streams dropped so far because they fell behind (their queue filled). */
  laggingDrops = 0;

  constructor(
    private readonly bus: Bus<RoomChange>,
    uris: Record<RoomView, string>,
    /** The room's clock, which session expiries are on. */
    private readonly now: () => number,
    limits: StreamLimits = {},
  ) {
    this.maxPerSession = limits.maxPerSession ?? DEFAULT_MAX_STREAMS_PER_SESSION;
    const asked = limits.maxStreams ?? DEFAULT_MAX_STREAMS;
    this.maxStreams = streamsWithin(asked, limits.openFiles ?? null);
    this.heldByOpenFiles = this.maxStreams < asked ? (limits.openFiles ?? null) : null;
    this.maxQueue = limits.maxQueue ?? DEFAULT_MAX_QUEUE;
    this.keepAliveMs = limits.keepAliveMs ?? KEEP_ALIVE_MS;
    this.fanout = new ListenFanout({ uris, maxQueue: this.maxQueue, framing: SSE_FRAMING });
    // Sees every change before the streams do (sinks are called in the order attached); holds no stream itself.
    const sessionWatch: BusSink<RoomChange> = {
      size: 0,
      deliver: (changes) => {
        for (const change of changes) this.endSessionsOf(change);
      },
      closeAll: () => {},
    };
    bus.attach(sessionWatch);
  }

  countFor(sessionId: string): number {
    let n = 0;
    for (const stream of this.streams) if (stream.owner.sessionId === sessionId) n++;
    return n;
  }

  /** Refuses a new stream past the room's cap (503, try again later) or the session's (429, close one first). */
  checkRoom(sessionId: string): void {
    if (this.streams.size >= this.maxStreams) {
      const most =
        this.heldByOpenFiles === null
          ? 'the most it serves at once'
          : `the most its process's limit of ${this.heldByOpenFiles} open files leaves room for (ulimit -n; LimitNOFILE= under systemd)`;
      throw new Refusal(
        503,
        'unavailable',
        `the room holds ${this.maxStreams} open streams, ${most}; try again later`,
        RPC.unavailable,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
    if (this.countFor(sessionId) >= this.maxPerSession) {
      throw refusal(
        RPC.limitReached,
        `this session already has ${this.maxPerSession} open streams, the most it may hold; close one first`,
      );
    }
  }

  /**
   * Opens a subscriptions/listen response: `first` (the acknowledgement),
   * then the notifications of what `watch` follows, until the client closes
   * it or cancels the request, it lags, its session ends (then it gets an
   * error answer), or the room stops (then it gets its final response).
   */
  openListen(options: {
    req: IncomingMessage;
    res: ServerResponse;
    owner: StreamOwner;
    requestId: RequestId;
    watch: ListenWatch;
    first: unknown;
    kind: 'listen' | 'page';
  }): void {
    const sse = new SseStream(options.res, this.keepAliveMs);
    const { requestId, owner } = options;
    const member = this.fanout.add(
      requestId,
      options.watch,
      sse,
      (reason) => {
        if (reason === 'lagging') this.laggingDrops += 1;
        if (reason === 'shutdown') {
          // Ending on purpose: the listen request gets its response first.
          sse.send({
            jsonrpc: '2.0',
            id: requestId,
            result: { resultType: 'complete', _meta: { ...resultMeta(), [META.subscriptionId]: requestId } },
          });
        } else if (reason === 'session_ended') {
          sse.send(sessionEnded(requestId));
        }
        this.forget(stream);
        if (this.fanout.size === 0) this.bus.detach(this.fanout);
        sse.end();
      },
      () => this.isLive(owner),
    );
    const stream: OpenStream = { kind: options.kind, owner, requestId, sse, close: (reason) => member.close(reason) };
    this.remember(stream);
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
    owner: StreamOwner;
    /** Which changes this stream takes from the bus (checked when they are published). */
    filter: (change: RoomChange) => boolean;
    render: (change: RoomChange) => unknown[];
  }): void {
    const { owner } = options;
    const sse = new SseStream(options.res, this.keepAliveMs);
    const subscription = this.bus.subscribe({
      // A session that ended takes nothing more; the stream closes with it.
      filter: (change) => {
        if (this.isLive(owner)) return options.filter(change);
        subscription.close('session_ended');
        return false;
      },
      maxQueue: this.maxQueue,
    });
    const stream: OpenStream = { kind: 'get_mcp', owner, requestId: null, sse, close: (r) => subscription.close(r) };
    this.remember(stream);
    const finish = () => {
      this.forget(stream);
      subscription.close();
      sse.end();
    };
    options.req.on('close', finish);
    options.res.on('close', finish);
    subscription.onClose((reason) => {
      if (reason === 'lagging') this.laggingDrops += 1;
      finish();
    });
    void (async () => {
      for await (const change of subscription) {
        if (sse.closed) return; // closed with changes still queued: they are not sent
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
      if (stream.owner.sessionId === sessionId && stream.requestId === requestId) {
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

  /** Open streams by kind (StreamKind). */
  openByKind(): Record<StreamKind, number> {
    const counts = { listen: 0, page: 0, get_mcp: 0 };
    for (const stream of this.streams) counts[stream.kind] += 1;
    return counts;
  }

  private isLive(owner: StreamOwner): boolean {
    return owner.expiresAt === null || owner.expiresAt > this.now();
  }

  /** A revocation or a participant's removal, as it is published: the streams of what it ended close now. */
  private endSessionsOf(change: RoomChange): void {
    const ended = sessionsEndedBy(change.event);
    if (ended === null) return;
    for (const stream of [...this.streams]) {
      const { owner } = stream;
      if ('session_id' in ended ? owner.sessionId === ended.session_id : owner.participant === ended.participant) {
        // Expired at once: any delivery still on its way to this stream finds it ended.
        owner.expiresAt = Number.NEGATIVE_INFINITY;
        stream.close('session_ended');
      }
    }
  }

  private remember(stream: OpenStream): void {
    this.streams.add(stream);
    // Expiry needs no request to notice it: while streams are open, they are checked every second.
    this.expiryCheck ??= setInterval(() => {
      for (const open of [...this.streams]) if (!this.isLive(open.owner)) open.close('session_ended');
    }, EXPIRY_CHECK_MS).unref();
  }

  private forget(stream: OpenStream): void {
    this.streams.delete(stream);
    if (this.streams.size === 0 && this.expiryCheck !== null) {
      clearInterval(this.expiryCheck);
      this.expiryCheck = null;
    }
  }
}
