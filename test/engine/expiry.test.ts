import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import {
  acceptHandoff,
  approveHandoff,
  completeHandoff,
  createHandoff,
  getHandoff,
  getTask,
  listHandoffEvents,
  limits,
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
