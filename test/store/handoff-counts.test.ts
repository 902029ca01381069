// Handoffs counted by status in the sidecar (migration 9's table and
// triggers): always what counting every handoff says, through creates,
// status changes and a rolled-back change, and filled from the handoffs a
// sidecar already has when it is migrated.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { acceptHandoff, cancelTask, createHandoff, roomStatus, type Room } from '../helpers/engine.js';
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
  expect(roomStatus(room).handoffs).toEqual({ open: 2, accepted: 1, cancelled: 2 });
  expect(roomStatus(room).handoffs).toEqual(counted());
});

test('a sidecar migrated to it has its handoffs counted', () => {
  for (let i = 0; i < 3; i++) createHandoff(room, alice, { summary: `h${i}` });
  const { handoff } = createHandoff(room, alice, { summary: 'cancelled' });
  cancelTask(room, alice, { task_id: handoff.task_id });
  // As a sidecar made before migration 9 was.
  room.sidecar.db.exec(`
    DROP TRIGGER handoff_counts_insert; DROP TRIGGER handoff_counts_update; DROP TRIGGER handoff_counts_delete;
    DROP TABLE handoff_counts; DELETE FROM schema_migrations WHERE version = 9;
  `);
  expect(migrate(room.sidecar.db, 0)).toEqual([9]);
  expect(roomStatus(room).handoffs).toEqual({ open: 3, cancelled: 1 });
  expect(roomStatus(room).handoffs).toEqual(counted());
});
