/**
 * In-process live delivery. The writer publishes after commit and never waits:
 * publishing only appends to each subscriber's bounded queue. A subscriber
 * whose queue is full has fallen behind and is dropped with a reason; it
 * recovers by reading the sidecar, since nothing is replayed.
 */
/** Why a subscription ended: its reader left, it fell behind, the room stops, or its session ended (revoked, expired, removed). */
export type CloseReason = 'closed' | 'lagging' | 'shutdown' | 'session_ended';

export interface SubscribeOptions<T> {
  /** Messages that may wait in the queue before the subscriber is dropped. */
  maxQueue?: number;
  /** Only messages this accepts are queued (checked at publish time). */
  filter?: (message: T) => boolean;
}

export const DEFAULT_MAX_QUEUE = 1000;

export class Subscription<T> implements AsyncIterable<T> {
  private queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private closeListeners: ((reason: CloseReason) => void)[] = [];
  closedReason: CloseReason | null = null;

  constructor(
    private readonly bus: Bus<T>,
    readonly maxQueue: number,
    readonly filter: ((message: T) => boolean) | undefined,
  ) {}

  /** Called by the bus; never blocks. */
  offer(message: T): void {
    if (this.closedReason) return;
    try {
      if (this.filter && !this.filter(message)) return;
    } catch {
      this.close('closed'); // a broken filter ends its own subscription, never the writer
      return;
    }
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: message, done: false });
      return;
    }
    if (this.queue.length >= this.maxQueue) {
      this.close('lagging');
      return;
    }
    this.queue.push(message);
  }

  /** The next message, or null once the subscription is closed and drained. */
  next(): Promise<T | null> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.closedReason) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiting = (result) => resolve(result.done ? null : result.value);
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  onClose(listener: (reason: CloseReason) => void): void {
    if (this.closedReason) listener(this.closedReason);
    else this.closeListeners.push(listener);
  }

  close(reason: CloseReason = 'closed'): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    // A dropped subscriber loses what it had not read: nothing is replayed.
    if (reason === 'lagging') this.queue = [];
    this.bus.remove(this);
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.({ value: undefined, done: true });
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const message = await this.next();
      if (message === null) return;
      yield message;
    }
  }
}

/**
 * A subscriber that takes every message at publish time and does its own
 * routing (the listen streams, src/mcp/listen-fanout.ts): one call per
 * publish for all the streams it serves, instead of one per stream and message.
 */
export interface BusSink<T> {
  /** Called at publish time with what one publish carried (one commit's messages), in order; never blocks. */
  deliver(messages: readonly T[]): void;
  /** The streams it serves, counted as subscribers. */
  readonly size: number;
  closeAll(reason: CloseReason): void;
}

export class Bus<T> {
  private readonly subscribers = new Set<Subscription<T>>();
  private readonly sinks = new Set<BusSink<T>>();

  subscribe(options: SubscribeOptions<T> = {}): Subscription<T> {
    const subscription = new Subscription<T>(this, options.maxQueue ?? DEFAULT_MAX_QUEUE, options.filter);
    this.subscribers.add(subscription);
    return subscription;
  }

  /** Publishes messages in order: a room publishes one commit's at once, so a sink can write each stream once. */
  publish(...messages: T[]): void {
    if (messages.length === 0) return;
    for (const subscriber of [...this.subscribers]) for (const message of messages) subscriber.offer(message);
    for (const sink of this.sinks) {
      try {
        sink.deliver(messages);
      } catch {
        sink.closeAll('closed'); // a broken sink ends its own streams, never the writer
      }
    }
  }

  attach(sink: BusSink<T>): void {
    this.sinks.add(sink);
  }

  detach(sink: BusSink<T>): void {
    this.sinks.delete(sink);
  }

  /** @internal used by Subscription.close */
  remove(subscription: Subscription<T>): void {
    this.subscribers.delete(subscription);
  }

  /** Live subscribers, the streams of each sink included. */
  get size(): number {
    let n = this.subscribers.size;
    for (const sink of this.sinks) n += sink.size;
    return n;
  }

  /** Ends every subscription, e.g. when the room process stops. */
  closeAll(reason: CloseReason = 'shutdown'): void {
    for (const subscriber of [...this.subscribers]) subscriber.close(reason);
    for (const sink of [...this.sinks]) sink.closeAll(reason);
  }
}
