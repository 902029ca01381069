import type { Caller, DetailedTask, Event, EventType, Handoff } from '../../generated/types.js';
import { Bus } from '../bus/bus.js';
import { existsSync } from 'node:fs';
import { removeLeftoverTempFiles } from '../store/artifact-file.js';
import { openSidecar, requireArtifactPath, sidecarPath, type Sidecar } from '../store/sidecar.js';
import { RoomStore } from '../store/room-store.js';
import { WorkspaceStore } from '../store/workspace-store.js';
import type { EventRow, HandoffRow, TaskRow } from '../store/rows.js';
import { systemClock, type Clock } from './clock.js';
import { DomainError } from '../errors.js';
import { GroupCommit } from './group-commit.js';
import { EVENT_RING_SIZE, EVENT_RING_SLACK, PROGRESS_INTERVAL_MS } from './limits.js';
import { requireTextFile } from './artifact/text.js';
import { ProgressPacer } from './progress-pacer.js';
import { deepFreeze } from './deep-freeze.js';
import { toDetailedTask, toEvent, toHandoff } from './row-mapping.js';

/** A committed change's event, with what live subscribers get of it (null when none listened as it was made). */
export interface Committed {
  event: Event;
  live: RoomChange | null;
}

/** What a committed state change tells live subscribers. */
export interface RoomChange {
  event: Event;
  handoff: Handoff | null;
  /** The task as committed, with who may see it; null when there is no task row. */
  task: { detailed: DetailedTask; owner: string; assignee: string | null } | null;
}

export interface Room {
  readonly artifactPath: string;
  readonly sidecar: Sidecar;
  readonly store: RoomStore;
  readonly workspace: WorkspaceStore;
  readonly clock: Clock;
  readonly bus: Bus<RoomChange>;
  /** Progress reports waiting for their task's next commit (see report-progress.ts). */
  readonly progress: ProgressPacer<Change>;
  /** How changes reach the disk: one commit each, or shared by a turn's changes in a served room. */
  readonly commits: GroupCommit<Committed>;
  /**
   * Called after each commit with the events it made durable (the room's
   * log, src/http/observe/change-log.ts): the events as written, none of the
   * snapshots live subscribers get.
   */
  readonly eventListeners: Set<(events: Event[]) => void>;
  /** A second person decides, whatever the settings say: the room was opened so (`ce serve --four-eyes`). */
  readonly fourEyes: boolean;
  close(): void;
}

export interface OpenRoomOptions {
  mode?: 'write' | 'read';
  /** With 'write': make a missing sidecar (default); false refuses a file that is not a room yet. */
  create?: boolean;
  clock?: Clock;
  /** Named in the writer's lock. */
  command?: string;
  /** A second person decides, whatever the room's settings say (`ce serve --four-eyes`). */
  fourEyes?: boolean;
}

export function openRoom(artifactPath: string, options: OpenRoomOptions = {}): Room {
  requireArtifactPath(artifactPath);
  const clock = options.clock ?? systemClock;
  // A room is made only of a text file: refused before the sidecar exists.
  const making = (options.mode ?? 'write') === 'write' && options.create !== false;
  if (making && existsSync(artifactPath) && !existsSync(sidecarPath(artifactPath))) requireTextFile(artifactPath);
  const sidecar = openSidecar(artifactPath, {
    mode: options.mode ?? 'write',
    now: clock.now(),
    ...(options.create === undefined ? {} : { create: options.create }),
    ...(options.command ? { command: options.command } : {}),
  });
  // The writer holds the lock: a temp file of this artifact is a write that died before its rename.
  if (sidecar.writable) removeLeftoverTempFiles(artifactPath);
  const bus = new Bus<RoomChange>();
  const progress = new ProgressPacer<Change>(PROGRESS_INTERVAL_MS);
  const eventListeners = new Set<(events: Event[]) => void>();
  const store = new RoomStore(sidecar.db, { writer: sidecar.writable });
  // Owed once a commit, as it ends: the handoff counts written, the ring pruned past EVENT_RING_SIZE + EVENT_RING_SLACK.
  const endOfBatch = () => {
    store.writeHandoffCounts();
    store.pruneEventRing(EVENT_RING_SIZE, EVENT_RING_SLACK);
  };
  const publish = (committed: Committed[]) => {
    if (committed.length === 0) return;
    if (eventListeners.size > 0) {
      const events = committed.map((item) => item.event);
      for (const listener of eventListeners) {
        try {
          listener(events);
        } catch {
          // what a log could not write is its own loss, never the writer's
        }
      }
    }
    bus.publish(...committed.flatMap((item) => (item.live ? [item.live] : [])));
  };
  const commits = new GroupCommit<Committed>(sidecar.db, publish, endOfBatch);
  const room: Room = {
    artifactPath,
    sidecar,
    store,
    workspace: new WorkspaceStore(sidecar.db),
    clock,
    bus,
    progress,
    commits,
    eventListeners,
    fourEyes: options.fourEyes === true,
    close() {
      // A report that waits is committed while the room can still write it.
      for (const report of progress.takeAll()) {
        try {
          change(room, (c) => report.apply(c));
        } catch (error) {
          if (!(error instanceof DomainError)) throw error; // its task moved on: nothing left to report
        }
      }
      commits.stop();
      bus.closeAll('shutdown');
      sidecar.close();
    },
  };
  return room;
}

export interface RecordedEvent {
  type: EventType;
  actor: string | null;
  handoffId: string | null;
  taskId: string | null;
  payload?: Record<string, unknown>;
}

/** The state change being built: rows are written through the store, events through `record`. */
export interface Change {
  readonly now: number;
  record(event: RecordedEvent): void;
}

export interface ChangeOptions {
  /**
   * Committed before `change` returns, with whatever shares its batch: the
   * room is about to do something outside SQLite (write the artifact file)
   * that must find this change on disk.
   */
  durableNow?: boolean;
  /**
   * The tasks this change is about to alter. A progress report waiting for
   * one of them is applied first, in the same transaction: reports and the
   * change that ends a task commit in order, and the last report before a
   * task ends is kept. One no longer reportable (its task moved on) is dropped.
   */
  alters?: (change: Change) => readonly string[];
}

/** Applies the waiting reports of `taskIds` within `change`; the ids of those it took. */
function applyWaitingProgress(room: Room, change: Change, taskIds: readonly string[]): string[] {
  const taken: string[] = [];
  for (const taskId of taskIds) {
    const waiting = room.progress.waitingFor(taskId);
    if (!waiting) continue;
    taken.push(taskId);
    try {
      waiting.apply(change);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
  return taken;
}

/**
 * Runs one state change as one SQLite transaction with its events (a
 * savepoint of the open batch when the room groups commits, see
 * group-commit.ts), then publishes what changed. Publishing happens after
 * commit and never waits.
 */
export function change<T>(room: Room, apply: (change: Change) => T, options: ChangeOptions = {}): T {
  if (!room.sidecar.writable) {
    throw new DomainError('locked', 'the room is open for reading only; state changes go through the writer');
  }
  const now = room.clock.now();
  let taken: string[] = [];
  const run = () => {
    // The events as written: what subscribers and the log get is made from them, not read back from SQLite.
    const recorded: EventRow[] = [];
    const current: Change = {
      now,
      record(event) {
        const row = {
          type: event.type,
          at: now,
          actor: event.actor,
          handoff_id: event.handoffId,
          task_id: event.taskId,
          payload_json: JSON.stringify(event.payload ?? {}),
        };
        recorded.push({ id: room.store.insertEvent(row), ...row });
      },
    };
    taken = options.alters ? applyWaitingProgress(room, current, options.alters(current)) : [];
    const result = apply(current);
    // Snapshots are taken at the end of the transaction: what subscribers
    // see is exactly what was committed. With no subscriber, none is read,
    // and the events themselves are made only for the room's log.
    const live = room.bus.size > 0;
    const changes: Committed[] = live
      ? recorded.map((row) => {
          const change = snapshot(room, toEvent(row));
          return { event: change.event, live: change };
        })
      : room.eventListeners.size > 0
        ? recorded.map((row) => ({ event: toEvent(row), live: null }))
        : [];
    return { result, changes };
  };
  const result = room.store.handoffCounts.keptIfDone(() => room.commits.run(run, options.durableNow === true));
  for (const taskId of taken) room.progress.settle(taskId);
  return result;
}

function snapshot(room: Room, event: Event): RoomChange {
  const handoffRow = event.handoff_id ? room.store.getHandoff(event.handoff_id) : undefined;
  const taskRow = event.task_id ? room.store.getTask(event.task_id) : undefined;
  return {
    event,
    handoff: handoffRow ? handoffView(room, handoffRow) : null,
    task: taskRow ? { detailed: taskView(room, taskRow), owner: taskRow.owner, assignee: taskRow.assignee } : null,
  };
}

export const handoffView = (room: Room, row: HandoffRow): Handoff =>
  toHandoff(row, room.store.listInputsForHandoff(row.id));

/** Views of the writer's committed task rows (frozen, room-store.ts), made once each; frozen too. */
const committedViews = new WeakMap<Readonly<TaskRow>, DetailedTask>();

export function taskView(room: Room, row: Readonly<TaskRow>): DetailedTask {
  // A task waiting for input shows its outstanding requests, which change without its row.
  if (row.status === 'input_required') return toDetailedTask(row, room.store.listOutstandingInputs(row.id));
  if (!Object.isFrozen(row)) return toDetailedTask(row, []);
  let view = committedViews.get(row);
  if (!view) committedViews.set(row, (view = deepFreeze(toDetailedTask(row, []))));
  return view;
}

/** The task when the caller is its owner or assignee; a task id alone is not authorization. */
export const canSeeTask = (caller: Caller, task: TaskRow): boolean =>
  task.owner === caller.participant || task.assignee === caller.participant;

/** The participants who may see a task (those for whom canSeeTask holds): its owner and its assignee. */
export const taskViewers = (task: { owner: string; assignee: string | null }): string[] =>
  task.assignee === null || task.assignee === task.owner ? [task.owner] : [task.owner, task.assignee];
