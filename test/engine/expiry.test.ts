import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import {
  acceptHandoff,
  approveHandoff,
  cancelTask,
  completeHandoff,
  createHandoff,
  getHandoff,
  getTask,
  listHandoffEvents,
  limits,
  openRoom,
  requestHandoffInput,
  startExpirySweeper,
  sweepExpiredTasks,
  type Room,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const bob = caller('bob');
const TTL = limits.TASK_TTL_MS;

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom();
  room = t.room;
});
afterEach(() => t.close());

test('active work inside the TTL is left alone', () => {
  const { handoff } = createHandoff(room, alice, { summary: 'x' });
  t.clock.advance(TTL - 1);
  expect(sweepExpiredTasks(room)).toEqual({ expired: [], deleted: 0 });
  expect(getTask(room, alice, { task_id: handoff.task_id }).status).toBe('working');
});

test('a non-terminal task older than one TTL fails with `task expired`; its open or accepted handoff is cancelled', () => {
  const open = createHandoff(room, alice, { summary: 'open one' }).handoff;
  const accepted = createHandoff(room, alice, { summary: 'accepted one', assignee: 'bob' }).handoff;
  acceptHandoff(room, bob, { handoff_id: accepted.handoff_id });
  const waiting = createHandoff(room, alice, { summary: 'waiting one', assignee: 'bob' }).handoff;
  acceptHandoff(room, bob, { handoff_id: waiting.handoff_id });
  requestHandoffInput(room, bob, { handoff_id: waiting.handoff_id, message: 'which?' });

  t.clock.advance(TTL);
  const report = sweepExpiredTasks(room);
  expect(report.expired.sort()).toEqual([open.task_id, accepted.task_id, waiting.task_id].sort());
  for (const h of [open, accepted, waiting]) {
    expect(getTask(room, alice, { task_id: h.task_id })).toMatchObject({
      status: 'failed',
      statusMessage: 'task expired',
      error: { code: limits.TASK_EXPIRED_CODE, message: 'task expired' },
    });
    const after = getHandoff(room, alice, { handoff_id: h.handoff_id }).handoff;
    expect(after.status).toBe('cancelled');
    expect(listHandoffEvents(room, alice, { handoff_id: h.handoff_id }).events.at(-1)).toMatchObject({
      type: 'task.expired',
      actor: null,
    });
  }
  // A second sweep finds nothing more to do.
  expect(sweepExpiredTasks(room)).toEqual({ expired: [], deleted: 0 });
});

test('a sweep with nothing due opens no transaction; one with a task to expire or a row to delete does', () => {
  const commits = vi.spyOn(room.commits, 'run');
  const { handoff } = createHandoff(room, alice, { summary: 'x', assignee: 'bob' });
  acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
  commits.mockClear();
  t.clock.advance(TTL - 1);
  expect(sweepExpiredTasks(room)).toEqual({ expired: [], deleted: 0 });
  expect(commits).not.toHaveBeenCalled();
  t.clock.advance(1);
  expect(sweepExpiredTasks(room)).toEqual({ expired: [handoff.task_id], deleted: 0 });
  expect(commits).toHaveBeenCalledTimes(1);
  // The expired row is deleted one TTL after its last update: nothing due until then.
  t.clock.advance(TTL - 1);
  expect(sweepExpiredTasks(room)).toEqual({ expired: [], deleted: 0 });
  expect(commits).toHaveBeenCalledTimes(1);
  t.clock.advance(1);
  expect(sweepExpiredTasks(room)).toEqual({ expired: [], deleted: 1 });
  expect(commits).toHaveBeenCalledTimes(2);
});

test('terminal task rows are deleted one TTL after their last update; the handoff keeps the result', () => {
  const { handoff } = createHandoff(room, alice, { summary: 'x', assignee: 'bob' });
  acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
  t.clock.advance(TTL / 2);
  const result = { content: [{ type: 'text' as const, text: 'the answer' }] };
  completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result }); // last update at TTL/2

  t.clock.advance(TTL / 2); // one TTL after creation, but the task is terminal: not expired
  expect(sweepExpiredTasks(room)).toEqual({ expired: [], deleted: 0 });
  expect(getTask(room, alice, { task_id: handoff.task_id }).status).toBe('completed');

  t.clock.advance(TTL / 2 - 1);
  expect(sweepExpiredTasks(room).deleted).toBe(0);
  t.clock.advance(1);
  expect(sweepExpiredTasks(room).deleted).toBe(1);

  expectRefused(room, () => getTask(room, alice, { task_id: handoff.task_id }), 'not_found', /^unknown task$/);
  const kept = getHandoff(room, alice, { handoff_id: handoff.handoff_id });
  expect(kept.task).toBeNull();
  expect(kept.handoff).toMatchObject({ status: 'result_ready', result, task_id: handoff.task_id });
  // The decision does not need the task row.
  expect(
    approveHandoff(room, caller('dave', ['read', 'approve']), { handoff_id: handoff.handoff_id }).handoff.status,
  ).toBe('approved');
  // A late second completion still returns the stored result.
  expect(completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result: { content: [] } })).toMatchObject({
    already_completed: true,
    task: null,
    handoff: { result },
  });
});

test('an expired task row is itself deleted one TTL later', () => {
  const { handoff } = createHandoff(room, alice, { summary: 'x' });
  t.clock.advance(TTL);
  sweepExpiredTasks(room);
  t.clock.advance(TTL);
  expect(sweepExpiredTasks(room)).toEqual({ expired: [], deleted: 1 });
  expect(getHandoff(room, alice, { handoff_id: handoff.handoff_id }).handoff.error).toEqual({
    code: limits.TASK_EXPIRED_CODE,
    message: 'task expired',
  });
});

test('the sweeper runs at start and then on its interval', async () => {
  const { handoff } = createHandoff(room, alice, { summary: 'x' });
  t.clock.advance(TTL);
  const stop = startExpirySweeper(room, 20);
  try {
    expect(getTask(room, alice, { task_id: handoff.task_id }).status).toBe('failed');
    const second = createHandoff(room, alice, { summary: 'y' }).handoff;
    t.clock.advance(TTL);
    await expect.poll(() => getTask(room, alice, { task_id: second.task_id }).status, { timeout: 5000 }).toBe('failed');
  } finally {
    stop();
  }
});

// Migration 13: finished tasks are indexed by when they fall due, so the sweep finds the rows to delete without
// reading every finished row. A sidecar made before it is read as before (the sweep's statements are prepared at
// the first sweep), gets the index when a room opens it to write, and sweeps the same rows.
const FINISHED = "status = 'completed' OR status = 'failed' OR status = 'cancelled'";

const indexSql = (r: Room) =>
  (
    r.sidecar.db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = 'tasks_finished_due'").get() as
      { sql: string } | undefined
  )?.sql;

/** The task ids the index holds, in the order it keeps them. */
const indexed = (r: Room) =>
  r.sidecar.db
    .prepare(`SELECT id FROM tasks INDEXED BY tasks_finished_due WHERE (${FINISHED}) ORDER BY last_updated_at + ttl_ms`)
    .pluck()
    .all();

/** Three tasks: one working, one completed, one cancelled, finished TTL/2 apart. */
function threeTasks(r: Room) {
  const working = createHandoff(r, alice, { summary: 'Working' }).handoff;
  const completed = createHandoff(r, alice, { summary: 'Completed', assignee: 'bob' }).handoff;
  acceptHandoff(r, bob, { handoff_id: completed.handoff_id });
  completeHandoff(r, bob, { handoff_id: completed.handoff_id, result: { content: [] } });
  t.clock.advance(TTL / 2);
  const cancelled = createHandoff(r, alice, { summary: 'Cancelled' }).handoff;
  cancelTask(r, alice, { task_id: cancelled.task_id });
  return { working, completed, cancelled };
}

test('a new sidecar indexes its finished tasks, and only them, by when they fall due', () => {
  expect(indexSql(room)).toMatch(
    /ON tasks \(last_updated_at \+ ttl_ms\)\s+WHERE status = 'completed' OR status = 'failed' OR status = 'cancelled'$/,
  );
  const { completed, cancelled } = threeTasks(room);
  expect(indexed(room)).toEqual([completed.task_id, cancelled.task_id]);
});

test('a sidecar made before migration 13 is read as before, gets the index when a room opens it to write, and sweeps the same rows', () => {
  const { working, completed, cancelled } = threeTasks(room);
  room.sidecar.db.exec('DROP INDEX tasks_finished_due; DELETE FROM schema_migrations WHERE version = 13');
  room.close();
  // Opened for reading (not migrated, as while an earlier ce still writes it), it reads as before.
  const reader = openRoom(t.artifact, { mode: 'read', clock: t.clock });
  try {
    expect(getTask(reader, alice, { task_id: cancelled.task_id }).status).toBe('cancelled');
    expect(indexSql(reader)).toBeUndefined();
  } finally {
    reader.close();
  }
  room = openRoom(t.artifact, { clock: t.clock, command: 'vitest' });
  t.room = room;
  expect(indexSql(room)).toContain('tasks_finished_due');
  expect(indexed(room)).toEqual([completed.task_id, cancelled.task_id]);
  // One TTL after the first finished: that row goes; the working task, created as long ago, expires.
  t.clock.advance(TTL / 2);
  expect(sweepExpiredTasks(room)).toEqual({ expired: [working.task_id], deleted: 1 });
  expect(indexed(room)).toEqual([cancelled.task_id, working.task_id]);
  expect(getTask(room, alice, { task_id: cancelled.task_id }).status).toBe('cancelled');
  t.clock.advance(TTL / 2);
  expect(sweepExpiredTasks(room)).toEqual({ expired: [], deleted: 1 });
  expect(indexed(room)).toEqual([working.task_id]);
});
