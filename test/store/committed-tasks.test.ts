// The writer keeps its task rows as committed (room-store.ts), and their
// views made once (engine/room.ts): a read after any change sees that
// change, a change rolled back leaves the committed row (grouped or not,
// refused alone or with its batch), no reader can change a view another
// reads, and a room open for reading keeps nothing, since the writer is
// another process.
import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  acceptHandoff,
  change,
  completeHandoff,
  createHandoff,
  getTask,
  openRoom,
  type Room,
} from '../helpers/engine.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const bob = caller('bob');

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom(['alice', 'bob']);
  room = t.room;
});
afterEach(() => t.close());

/** A change that rewrites the task's status, then is refused: rolled back. */
function refusedRewrite(taskId: string): void {
  expect(() =>
    change(room, () => {
      room.store.updateTask({ ...room.store.getTask(taskId)!, status: 'failed', status_message: 'never committed' });
      expect(room.store.getTask(taskId)?.status).toBe('failed'); // read inside the change: not kept
      throw new Error('refused after the write');
    }),
  ).toThrow('refused after the write');
}

test('a read after a change sees it; a change rolled back leaves the committed row', () => {
  const { handoff } = createHandoff(room, alice, { summary: 'Cached', assignee: 'bob' });
  expect(getTask(room, alice, { task_id: handoff.task_id })).toMatchObject({ status: 'working' });
  expect(Object.isFrozen(room.store.getTask(handoff.task_id))).toBe(true);

  refusedRewrite(handoff.task_id);
  expect(getTask(room, alice, { task_id: handoff.task_id })).toMatchObject({ status: 'working' });

  acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
  change(room, () => room.store.updateTask({ ...room.store.getTask(handoff.task_id)!, status_message: 'seen' }));
  expect(getTask(room, alice, { task_id: handoff.task_id })).toMatchObject({ statusMessage: 'seen' });
});

test('a committed task’s view is made once, frozen all the way down, and made again after a change', () => {
  const { handoff } = createHandoff(room, alice, { summary: 'Viewed', assignee: 'bob' });
  acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
  completeHandoff(room, bob, {
    handoff_id: handoff.handoff_id,
    result: { content: [{ type: 'text', text: 'Done' }] },
  });
  const first = getTask(room, alice, { task_id: handoff.task_id });
  expect(first).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Done' }] } });
  expect(getTask(room, bob, { task_id: handoff.task_id })).toBe(first);
  expect(Object.isFrozen(first)).toBe(true);
  expect(() => {
    (first as { result: { content: unknown[] } }).result.content.push('changed by a reader');
  }).toThrow(TypeError);

  change(room, () => room.store.updateTask({ ...room.store.getTask(handoff.task_id)!, status_message: 'noted' }));
  const after = getTask(room, alice, { task_id: handoff.task_id });
  expect(after).not.toBe(first);
  expect(after).toMatchObject({ status: 'completed', statusMessage: 'noted' });
});

test('grouped commits: a refused change in its savepoint, and a change in a batch not yet committed', async () => {
  const { handoff } = createHandoff(room, alice, { summary: 'Grouped', assignee: 'bob' });
  getTask(room, alice, { task_id: handoff.task_id });
  room.commits.start();
  try {
    refusedRewrite(handoff.task_id);
    expect(getTask(room, alice, { task_id: handoff.task_id })).toMatchObject({ status: 'working' });
    change(room, () => room.store.updateTask({ ...room.store.getTask(handoff.task_id)!, status_message: 'batched' }));
    // In the open batch: read as it stands in the transaction, and not kept.
    expect(getTask(room, alice, { task_id: handoff.task_id })).toMatchObject({ statusMessage: 'batched' });
    await room.commits.durably(async () => undefined);
    expect(room.sidecar.db.inTransaction).toBe(false);
    expect(getTask(room, alice, { task_id: handoff.task_id })).toMatchObject({ statusMessage: 'batched' });
  } finally {
    room.commits.stop();
  }
});

test('a room open for reading keeps no row: it sees what the writer commits', () => {
  const { handoff } = createHandoff(room, alice, { summary: 'Read elsewhere', assignee: 'bob' });
  const reader = openRoom(t.artifact, { mode: 'read' });
  try {
    expect(getTask(reader, alice, { task_id: handoff.task_id })).toMatchObject({ status: 'working' });
    acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
    change(room, () =>
      room.store.updateTask({ ...room.store.getTask(handoff.task_id)!, status_message: 'from the writer' }),
    );
    expect(getTask(reader, alice, { task_id: handoff.task_id })).toMatchObject({ statusMessage: 'from the writer' });
  } finally {
    reader.close();
  }
});
