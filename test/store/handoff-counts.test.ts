// Handoffs counted by status in the sidecar (migration 9's table, kept by
// the writer once a commit since migration 11: store/handoff-counts.ts):
// always what counting every handoff says once a commit has ended, through
// creates, status changes, a refused change, a change rolled back in its
// savepoint or with its whole batch, and a batch whose COMMIT fails; filled
// from the handoffs a sidecar already has when it is migrated.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  acceptHandoff,
  cancelTask,
  change,
  createHandoff,
  DomainError,
  roomStatus,
  type Room,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';
import { migrate } from '../../src/store/migrate.js';

const alice = caller('alice');
const bob = caller('bob');

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom(['alice', 'bob']);
  room = t.room;
});
afterEach(() => t.close());

/** Every handoff counted, as the sidecar's rows say. */
const counted = () =>
  Object.fromEntries(
    (
      room.sidecar.db.prepare('SELECT status, count(*) AS n FROM handoffs GROUP BY status').all() as {
        status: string;
        n: number;
      }[]
    ).map(({ status, n }) => [status, n]),
  );

test('kept equal to a count of every handoff through creates, changes and a refused change', () => {
  expect(roomStatus(room).handoffs).toEqual({});
  const made = Array.from({ length: 5 }, (_, i) => createHandoff(room, alice, { summary: `h${i}`, assignee: 'bob' }));
  acceptHandoff(room, bob, { handoff_id: made[0]!.handoff.handoff_id });
  acceptHandoff(room, bob, { handoff_id: made[1]!.handoff.handoff_id });
  cancelTask(room, alice, { task_id: made[1]!.handoff.task_id });
  cancelTask(room, alice, { task_id: made[2]!.handoff.task_id });
  // Refused: the sidecar, its counts included, unchanged.
  expectRefused(room, () => acceptHandoff(room, bob, { handoff_id: made[2]!.handoff.handoff_id }), 'conflict', /./);
  // Refused after it moved a handoff: its transaction and what it counted are rolled back.
  expect(() => movedThenFailed(made[3]!.handoff.handoff_id)).toThrow('refused after it wrote');
  expect(roomStatus(room).handoffs).toEqual({ open: 2, accepted: 1, cancelled: 2 });
  expect(roomStatus(room).handoffs).toEqual(counted());
});

test('a sidecar migrated to it has its handoffs counted', () => {
  for (let i = 0; i < 3; i++) createHandoff(room, alice, { summary: `h${i}` });
  const { handoff } = createHandoff(room, alice, { summary: 'cancelled' });
  cancelTask(room, alice, { task_id: handoff.task_id });
  // As a sidecar made before migration 9 was.
  room.sidecar.db.exec(`DROP TABLE handoff_counts; DELETE FROM schema_migrations WHERE version IN (9, 11);`);
  expect(migrate(room.sidecar.db, 0)).toEqual([9, 11]);
  expect(roomStatus(room).handoffs).toEqual({ open: 3, cancelled: 1 });
  expect(roomStatus(room).handoffs).toEqual(counted());
  // Migration 9's triggers are gone with 11; the writer counts what comes next.
  expect(room.sidecar.db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all()).toEqual([]);
  cancelTask(room, alice, {
    task_id: room.store.listHandoffs({ status: 'open', before_at: null, before_id: null, limit: 1 })[0]!.task_id,
  });
  expect(roomStatus(room).handoffs).toEqual({ open: 2, cancelled: 2 });
  expect(roomStatus(room).handoffs).toEqual(counted());
});

/** A change that moves a handoff to cancelled, then fails; `end` may end the whole transaction first. */
function movedThenFailed(handoffId: string, end = false): void {
  change(room, () => {
    const handoff = room.store.getHandoff(handoffId)!;
    room.store.updateHandoff({ ...handoff, status: 'cancelled' }, handoff);
    if (end) room.sidecar.db.exec('ROLLBACK'); // as SQLite does on a full disk
    throw new DomainError('conflict', 'refused after it wrote');
  });
}

test('grouped commits: counted as a batch commits; what a refused change or a failed batch moved is not', async () => {
  const made = Array.from({ length: 4 }, (_, i) => createHandoff(room, alice, { summary: `h${i}`, assignee: 'bob' }));
  const id = (i: number) => made[i]!.handoff.handoff_id;
  room.commits.start();
  try {
    let release = room.commits.hold();
    acceptHandoff(room, bob, { handoff_id: id(0) });
    // Rolled back in its savepoint: the batch goes on without what it moved.
    expect(() => movedThenFailed(id(1))).toThrow('refused after it wrote');
    cancelTask(room, alice, { task_id: made[2]!.handoff.task_id });
    // Read inside the open batch: counted as the handoffs there are, as every figure of a status is.
    expect(roomStatus(room).handoffs).toEqual({ open: 2, accepted: 1, cancelled: 1 });
    expect(roomStatus(room).handoffs).toEqual(counted());
    // Refused after that read wrote the counts: the written counts go with its savepoint.
    expect(() => movedThenFailed(id(3))).toThrow('refused after it wrote');
    expect(roomStatus(room).handoffs).toEqual(counted());
    release();
    await room.commits.idle();
    expect(roomStatus(room).handoffs).toEqual({ open: 2, accepted: 1, cancelled: 1 });
    expect(roomStatus(room).handoffs).toEqual(counted());

    // A batch whose COMMIT fails (a full disk): none of its changes is kept, nor counted.
    release = room.commits.hold();
    acceptHandoff(room, bob, { handoff_id: id(1) });
    expect(roomStatus(room).handoffs).toEqual({ open: 1, accepted: 2, cancelled: 1 });
    room.commits.beforeCommit = () => {
      room.commits.beforeCommit = null;
      throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    };
    release();
    await expect(room.commits.idle()).rejects.toThrow(/full/);
    expect(roomStatus(room).handoffs).toEqual({ open: 2, accepted: 1, cancelled: 1 });

    // A change that ends the whole transaction: the batch it was in is rolled back, counts and all.
    release = room.commits.hold();
    acceptHandoff(room, bob, { handoff_id: id(1) });
    expect(() => movedThenFailed(id(3), true)).toThrow();
    release();
    await room.commits.idle().catch(() => {});
    expect(roomStatus(room).handoffs).toEqual({ open: 2, accepted: 1, cancelled: 1 });
    expect(roomStatus(room).handoffs).toEqual(counted());

    // The next batch counts from there.
    acceptHandoff(room, bob, { handoff_id: id(1) });
    cancelTask(room, alice, { task_id: made[3]!.handoff.task_id });
    await room.commits.idle();
    expect(roomStatus(room).handoffs).toEqual({ accepted: 2, cancelled: 2 });
    expect(roomStatus(room).handoffs).toEqual(counted());
  } finally {
    room.commits.stop();
  }
});
