// One listen stream of the fan-out (listen-fanout.ts): its frames sent as
// they come, or queued behind a full socket; a queue that overflows drops
// the stream as lagging (nothing is replayed).
import type { CloseReason } from '../bus/bus.js';
import type { RoomView } from '../engine/index.js';

/** What one listen stream follows, as its acknowledgement said. */
export interface ListenWatch {
  /** The participant whose session listens: a task's notifications go only to those who may see it. */
  participant: string;
  taskIds: ReadonlySet<string>;
  views: ReadonlySet<RoomView>;
}

/** What a stream asks of the fan-out it belongs to: its queues' bounds, and leaving it. */
export interface MemberQueues {
  /** Writes (one a commit) a stream may have waiting behind a full socket before it is dropped as lagging. */
  readonly maxQueue: number;
  /** Whether a stream may queue `size` bytes more (counted if so). */
  mayQueue(size: number): boolean;
  /** `size` bytes left the queues (sent, or dropped with their stream). */
  dequeued(size: number): void;
  remove(member: ListenMember): void;
}

/** One commit's frames for one stream: text, or the same text as UTF-8 bytes shared by several streams. */
export type Frames = string | Uint8Array;

/** Where a listen stream's frames go (the transport's stream: an SseStream over HTTP). */
export interface FrameSink {
  /** False when the socket's buffer is full: wait for `drained()` before sending more. */
  sendFrame(frame: Frames): boolean;
  drained(): Promise<void>;
}

/** A frame's size as the queues count it: its bytes, or its characters (as many or fewer). */
const sizeOf = (frames: Frames): number => (typeof frames === 'string' ? frames.length : frames.byteLength);

export class ListenMember {
  /** The subscription id as JSON, spliced into each frame. */
  readonly idJson: string;
  private readonly queue: Frames[] = [];
  /** What `queue` holds, in bytes (sizeOf). */
  private queued = 0;
  private waitingForDrain = false;
  closed = false;

  constructor(
    readonly subscriptionId: string | number,
    readonly watch: ListenWatch,
    readonly sink: FrameSink,
    private readonly fanout: MemberQueues,
    /** Called once when the stream leaves the fan-out, with why. */
    readonly onClose: (reason: CloseReason) => void,
    /** Whether the session that opened the stream still holds: asked before every delivery. */
    private readonly live: () => boolean = () => true,
  ) {
    this.idJson = JSON.stringify(subscriptionId);
  }

  /** Sends a commit's frames now, or queues them behind a full socket. */
  deliver(frames: Frames): void {
    if (this.closed) return;
    // A session that ended gets nothing more, even before the room has closed its streams.
    if (!this.live()) return this.close('session_ended');
    if (this.waitingForDrain) {
      // A stream falls behind by the writes it holds, or, with the others, by what they all hold: large frames queued
      // for many paused streams (each its own copy, under an id of its own) would hold the room's memory.
      const size = sizeOf(frames);
      if (this.queue.length >= this.fanout.maxQueue || !this.fanout.mayQueue(size)) this.close('lagging');
      else {
        this.queue.push(frames);
        this.queued += size;
      }
      return;
    }
    if (!this.sink.sendFrame(frames)) this.waitForDrain();
  }

  close(reason: CloseReason = 'closed'): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0; // a dropped or closed stream loses what it had not sent: nothing is replayed
    this.fanout.dequeued(this.queued);
    this.queued = 0;
    this.fanout.remove(this);
    this.onClose(reason);
  }

  private waitForDrain(): void {
    this.waitingForDrain = true;
    void this.sink.drained().then(() => {
      this.waitingForDrain = false;
      while (!this.closed && this.queue.length > 0) {
        const frames = this.queue.shift()!;
        this.queued -= sizeOf(frames);
        this.fanout.dequeued(sizeOf(frames));
        if (!this.sink.sendFrame(frames)) return this.waitForDrain();
      }
    });
  }
}
