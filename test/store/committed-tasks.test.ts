// The writer keeps its task rows as committed (committed-tasks.ts), and
// their views made once (engine/room.ts): a read after any change sees that
// change, a change rolled back leaves the committed row (grouped or not,
// refused alone or with its batch), no reader can change a view another
// reads, what is kept is bounded by count and by text, and a room open for
// reading keeps nothing, since the writer is another process.
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
import { CommittedTasks } from '../../src/store/committed-tasks.js';
import type { TaskRow } from '../../src/store/rows.js';

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

test('bounded: a row whose result alone passes the bound is not kept, and past the bound it starts again', () => {
  const kept = new CommittedTasks();
  const row = (id: string, result: string | null = null): TaskRow => ({
    id,
    handoff_id: `h_${id}`,
    owner: 'alice',
    assignee: 'bob',
    operation: 'handoff',
    status: result === null ? 'working' : 'completed',
    status_message: null,
    created_at: 0,
    last_updated_at: 0,
    ttl_ms: 1000,
    poll_interval_ms: 1000,
    correlation_id: `c_${id}`,
    schema_version: 1,
    result_json: result,
    error_json: null,
  });
  const huge = row('huge', 'x'.repeat(4 * 1024 * 1024 + 1));
  expect(Object.isFrozen(kept.keep(huge))).toBe(false);
  expect(kept.get('huge')).toBeUndefined();

  kept.keep(row('a', 'x'.repeat(3 * 1024 * 1024)));
  kept.keep(row('b', 'x'.repeat(2 * 1024 * 1024))); // past the bound: starts again
  expect(kept.get('a')).toBeUndefined();
  expect(kept.get('b')).toBeDefined();
  kept.forget('b');
  kept.keep(row('c', 'x'.repeat(3 * 1024 * 1024))); // b's text no longer counts
  expect(kept.get('c')).toBeDefined();

  for (let i = 0; i < 10_000; i++) kept.keep(row(`t${i}`));
  expect(kept.get('c')).toBeUndefined(); // the 10,001st row started it again
  expect(kept.get('t9999')).toBeDefined();
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
