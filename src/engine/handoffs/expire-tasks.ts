import { handoffAllows } from '../../../generated/rules.js';
import { TASK_EXPIRED_CODE } from '../limits.js';
import { change, type Room } from '../room.js';

export interface SweepReport {
  /** Tasks marked failed with `task expired`. */
  expired: string[];
  /** Terminal task rows deleted one TTL after their last update. */
  deleted: number;
}

/**
 * The expiry sweep of the design note: a non-terminal task older than one
 * TTL from creation fails with `task expired` and its open or accepted
 * handoff is cancelled; a terminal task row is deleted one TTL after its
 * last update. Handoffs, with their result, are never deleted.
 */
export function sweepExpiredTasks(room: Room): SweepReport {
  // Nothing due, which is most sweeps: no transaction, and no sync of the log. At a start that sync would flush
  // what the writer's lock wrote just before, while the first request comes in. A task that falls due after
  // this read is the next sweep's.
  const at = room.clock.now();
  if (room.store.listExpiredActiveTasks(at).length === 0 && !room.store.anyFinishedTaskDue(at)) {
    return { expired: [], deleted: 0 };
  }
  return change(
    room,
    ({ now, record }) => {
      const expired: string[] = [];
      // Read after the waiting progress reports of these tasks were applied (`alters`): their rows as they are now.
      for (const task of room.store.listExpiredActiveTasks(now)) {
        const error = { code: TASK_EXPIRED_CODE, message: 'task expired' };
        room.store.updateTask({
          ...task,
          status: 'failed',
          status_message: 'task expired',
          error_json: JSON.stringify(error),
          last_updated_at: now,
        });
        const handoff = room.store.getHandoff(task.handoff_id)!;
        const cancelHandoff = handoffAllows('cancel', handoff.status);
        if (cancelHandoff) {
          room.store.updateHandoff(
            { ...handoff, status: 'cancelled', error_json: JSON.stringify(error), cancelled_at: now, updated_at: now },
            handoff,
          );
        }
        record({
          type: 'task.expired',
          actor: null,
          handoffId: handoff.id,
          taskId: task.id,
          payload: { handoff_cancelled: cancelHandoff },
        });
        expired.push(task.id);
      }
      const deleted = room.store.deleteFinishedTasksDue(now);
      return { expired, deleted };
    },
    // Waiting progress reports go first.
    { alters: ({ now }) => room.store.listExpiredActiveTasks(now).map((task) => task.id) },
  );
}

export const SWEEP_INTERVAL_MS = 60_000;

/** Sweeps now and then every interval until stopped; the timer never keeps the process alive. */
export function startExpirySweeper(room: Room, intervalMs = SWEEP_INTERVAL_MS): () => void {
  sweepExpiredTasks(room);
  const timer = setInterval(() => sweepExpiredTasks(room), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
