// Migration 13: finished tasks are indexed by when they fall due, so the
// expiry sweep finds the rows to delete without reading every finished row.
// A new sidecar has the index; one made before it gets it when a room opens
// it, keeps every row, and its sweep deletes the same rows; the index holds
// the finished tasks and nothing else.
import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  acceptHandoff,
  cancelTask,
  completeHandoff,
  createHandoff,
  getTask,
  limits,
  openRoom,
  sweepExpiredTasks,
  type Room,
} from '../helpers/engine.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const bob = caller('bob');
const TTL = limits.TASK_TTL_MS;

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom(['alice', 'bob']);
  room = t.room;
});
afterEach(() => t.close());

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

test('a sidecar made before migration 13 gets the index when a room opens it, and sweeps the same rows', () => {
  const { working, completed, cancelled } = threeTasks(room);
  room.sidecar.db.exec('DROP INDEX tasks_finished_due; DELETE FROM schema_migrations WHERE version = 13');
  room.close();
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
