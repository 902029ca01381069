import type { InputOf } from '../../../generated/operations.js';
import type { Caller, HandoffProgressInput, HandoffProgressOutput, Progress } from '../../../generated/types.js';
import type { HandoffRow, TaskRow } from '../../store/rows.js';
import { toTimestamp } from '../clock.js';
import { DomainError, invalidField, isDomainError } from '../../errors.js';
import { PROGRESS_INTERVAL_MS } from '../limits.js';
import { change, handoffView, taskView, type Change, type Room } from '../room.js';
import type { WaitingReport } from '../progress-pacer.js';
import { loadHandoff, loadTaskOf } from './load.js';

/** The handoff and task a report is about: the caller's to report on, and still working. */
function reportable(room: Room, caller: Caller, handoffId: string): { handoff: HandoffRow; task: TaskRow } {
  const handoff = loadHandoff(room, handoffId);
  if (handoff.assignee !== caller.participant || handoff.accepted_at === null) {
    throw new DomainError('forbidden', `only the assignee who accepted handoff ${handoff.id} may report its progress`);
  }
  const task = loadTaskOf(room, handoff);
  if (task.status !== 'working') {
    throw new DomainError(
      'conflict',
      task.status === 'input_required'
        ? `task ${task.id} is waiting for input; report progress once the owner has answered`
        : `task ${task.id} is ${task.status}: it takes no more progress`,
      { status: task.status },
    );
  }
  return { handoff, task };
}

const progressOf = (args: HandoffProgressInput, caller: Caller, at: number): Progress => ({
  message: args.message,
  ...(args.progress !== undefined ? { progress: args.progress } : {}),
  ...(args.total !== undefined ? { total: args.total } : {}),
  by: caller.participant,
  at: toTimestamp(at),
});

/** The report, within a change: the task's status message, the numbers on the handoff, one task.progress event. */
function applyProgress(room: Room, caller: Caller, args: HandoffProgressInput, { now, record }: Change) {
  const { handoff, task } = reportable(room, caller, args.handoff_id);
  const progress = progressOf(args, caller, now);
  const reported = { ...task, status_message: args.message, last_updated_at: now };
  const updated = { ...handoff, progress_json: JSON.stringify(progress), updated_at: now };
  room.store.updateTask(reported);
  room.store.updateHandoff(updated, handoff);
  const { by: _by, at: _at, ...payload } = progress;
  record({ type: 'task.progress', actor: caller.participant, handoffId: handoff.id, taskId: task.id, payload });
  room.progress.committed(task.id, now);
  return { handoff: handoffView(room, updated), task: taskView(room, reported) };
}

/** A waiting report committed on its own when its second is up. */
function commitWaiting(room: Room, report: WaitingReport<Change>): void {
  try {
    change(room, (c) => report.apply(c));
  } catch (error) {
    // The task moved on without taking it (its assignee removed, say): nothing is left to report on.
    if (!isDomainError(error)) throw error;
  }
}

/**
 * handoff_progress: the assignee says how far along a working task is. One
 * report per task per second is committed (with its event, and published
 * to those who may see the task); one that comes sooner waits for the
 * second to be up, replacing any that waited before it, and is committed
 * then, or as soon as the task is about to change (completion, a question,
 * cancelling, expiry), so the last report before the task ends is always
 * committed. A waiting report is answered `committed: false`.
 */
export function reportProgress(room: Room, caller: Caller, args: InputOf<'reportProgress'>): HandoffProgressOutput {
  // MCP's progress counts towards its total: past it, a progress bar would read more than done.
  if (args.progress !== undefined && args.total !== undefined && args.progress > args.total) {
    throw invalidField('progress', `${args.progress} is more than total ${args.total}`);
  }
  const { handoff, task } = reportable(room, caller, args.handoff_id);
  const now = room.clock.now();
  const last = room.progress.lastCommitOf(task.id);
  if (last === undefined || now - last >= PROGRESS_INTERVAL_MS) {
    // An older waiting report goes first, so reports commit in order.
    const committed = change(room, (c) => applyProgress(room, caller, args, c), { alters: () => [task.id] });
    return { ...committed, committed: true };
  }
  const report: WaitingReport<Change> = { apply: (c) => void applyProgress(room, caller, args, c) };
  room.progress.defer(task.id, last + PROGRESS_INTERVAL_MS - now, report, (due) => commitWaiting(room, due));
  const progress = progressOf(args, caller, now);
  return {
    handoff: { ...handoffView(room, handoff), progress },
    task: { ...taskView(room, task), statusMessage: args.message },
    committed: false,
  };
}
