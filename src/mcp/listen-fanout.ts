// Live delivery to subscriptions/listen streams, with no work per stream that
// does not get the change. Streams are indexed by the task they watch (and,
// under it, by the participant whose session opened them) and by the views
// they watch. For each committed change: who may see its task is decided
// once; each notification is serialized once (frames.ts) and every stream
// that gets it has its subscription id spliced in; streams whose listens
// had the same id (clients often number their requests alike) share one
// frame, encoded as bytes once. A commit's changes come together, and a
// stream gets what it follows of them in one write. Writes to a socket keep
// its backpressure: a full socket queues the stream's frames, a queue that
// overflows drops the stream as lagging (nothing is replayed).
import type { BusSink, CloseReason } from '../bus/bus.js';
import { taskViewers, type RoomChange, type RoomView } from '../engine/index.js';
import { frameTemplate, spliceFrame, type FrameTemplate, type Framing } from './frames.js';
import { META } from './protocol.js';
import { viewsChangedBy } from './resource-uris.js';
import { ListenMember, type FrameSink, type Frames, type ListenWatch, type MemberQueues } from './listen-member.js';

export type { FrameSink, Frames, ListenWatch } from './listen-member.js';

export interface ListenFanoutOptions {
  /** The URI of each view, for notifications/resources/updated. */
  uris: Record<RoomView, string>;
  /** Writes (one a commit) a stream may have waiting behind a full socket before it is dropped as lagging. */
  maxQueue: number;
  /** Bytes all streams together may have waiting; the stream whose frame would pass it is dropped as lagging. */
  maxQueuedBytes?: number;
  /** How the transport frames each message. */
  framing: Framing;
  /** Who may see a task; decided once per change. */
  viewers?: (task: NonNullable<RoomChange['task']>) => string[];
}

/** Bytes all listen streams of a room may have waiting behind full sockets, by default. */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

export class ListenFanout implements BusSink<RoomChange>, MemberQueues {
  readonly maxQueue: number;
  private readonly maxQueuedBytes: number;
  /** What every stream's queue holds now, in bytes. */
  private queuedBytes = 0;
  private readonly uris: Record<RoomView, string>;
  private readonly framing: Framing;
  private readonly viewers: (task: NonNullable<RoomChange['task']>) => string[];
  private readonly members = new Set<ListenMember>();
  /** The streams watching each task: by task id, then by the participant whose streams they are. */
  private readonly byTask = new Map<string, Map<string, Set<ListenMember>>>();
  private readonly byView = new Map<RoomView, Set<ListenMember>>();
  /** The resources/updated frame of each view, the same for every change. */
  private readonly viewFrames = new Map<RoomView, FrameTemplate>();

  constructor(options: ListenFanoutOptions) {
    this.uris = options.uris;
    this.framing = options.framing;
    this.maxQueue = options.maxQueue;
    this.maxQueuedBytes = options.maxQueuedBytes ?? MAX_QUEUED_BYTES;
    this.viewers = options.viewers ?? taskViewers;
  }

  /** Whether a stream may queue `size` bytes more (counted if so). */
  mayQueue(size: number): boolean {
    if (this.queuedBytes + size > this.maxQueuedBytes) return false;
    this.queuedBytes += size;
    return true;
  }

  /** `size` bytes left the queues (sent, or dropped with their stream). */
  dequeued(size: number): void {
    this.queuedBytes -= size;
  }

  get size(): number {
    return this.members.size;
  }

  add(
    subscriptionId: string | number,
    watch: ListenWatch,
    sink: FrameSink,
    onClose: (reason: CloseReason) => void,
    live?: () => boolean,
  ): ListenMember {
    const member = new ListenMember(subscriptionId, watch, sink, this, onClose, live);
    this.members.add(member);
    for (const taskId of watch.taskIds) {
      let byParticipant = this.byTask.get(taskId);
      if (!byParticipant) this.byTask.set(taskId, (byParticipant = new Map()));
      let streams = byParticipant.get(watch.participant);
      if (!streams) byParticipant.set(watch.participant, (streams = new Set()));
      streams.add(member);
    }
    for (const view of watch.views) {
      let streams = this.byView.get(view);
      if (!streams) this.byView.set(view, (streams = new Set()));
      streams.add(member);
    }
    return member;
  }

  /** @internal used by ListenMember.close */
  remove(member: ListenMember): void {
    if (!this.members.delete(member)) return;
    for (const taskId of member.watch.taskIds) {
      const byParticipant = this.byTask.get(taskId);
      const streams = byParticipant?.get(member.watch.participant);
      streams?.delete(member);
      if (streams?.size === 0) byParticipant!.delete(member.watch.participant);
      if (byParticipant?.size === 0) this.byTask.delete(taskId);
    }
    for (const view of member.watch.views) {
      const streams = this.byView.get(view);
      streams?.delete(member);
      if (streams?.size === 0) this.byView.delete(view);
    }
  }

  /**
   * One commit's changes to every stream that follows them (the bus calls
   * this at publish time). Each stream gets one write, however many of them
   * it follows: a stream's frames go out as soon as they are written.
   */
  deliver(changes: readonly RoomChange[]): void {
    // Each part: the streams that get one notification, and its frame. In the
    // order a stream sends them: change by change, the views it watches, then the task.
    const parts: [ReadonlySet<ListenMember>, FrameTemplate][] = [];
    for (const change of changes) this.addParts(change, parts);
    if (parts.length === 1) {
      const [streams, frame] = parts[0]!;
      const byId = new Map<string, Uint8Array>();
      for (const member of [...streams]) {
        let bytes = byId.get(member.idJson);
        if (bytes === undefined) byId.set(member.idJson, (bytes = Buffer.from(spliceFrame(frame, member.idJson))));
        member.deliver(bytes);
      }
      return;
    }
    if (parts.length === 0) return;
    const frames = new Map<ListenMember, string>();
    for (const [streams, frame] of parts) {
      for (const member of streams) frames.set(member, (frames.get(member) ?? '') + spliceFrame(frame, member.idJson));
    }
    for (const [member, text] of frames) member.deliver(text);
  }

  /** The notifications one change makes, each with the streams that get it. */
  private addParts(change: RoomChange, parts: [ReadonlySet<ListenMember>, FrameTemplate][]): void {
    for (const view of viewsChangedBy(change.event.type)) {
      const streams = this.byView.get(view);
      if (streams && streams.size > 0) parts.push([streams, this.viewFrame(view)]);
    }
    const task = change.task;
    const watching = task ? this.byTask.get(task.detailed.taskId) : undefined;
    if (!task || !watching) return;
    let frame: FrameTemplate | undefined;
    for (const participant of this.viewers(task)) {
      const streams = watching.get(participant);
      if (!streams || streams.size === 0) continue;
      frame ??= frameTemplate(
        (id) => ({
          jsonrpc: '2.0',
          method: 'notifications/tasks',
          params: { ...task.detailed, _meta: { [META.subscriptionId]: id } },
        }),
        this.framing,
      );
      parts.push([streams, frame]);
    }
  }

  closeAll(reason: CloseReason): void {
    for (const member of [...this.members]) member.close(reason);
  }

  private viewFrame(view: RoomView): FrameTemplate {
    let frame = this.viewFrames.get(view);
    if (!frame) {
      frame = frameTemplate(
        (id) => ({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri: this.uris[view], _meta: { [META.subscriptionId]: id } },
        }),
        this.framing,
      );
      this.viewFrames.set(view, frame);
    }
    return frame;
  }
}
