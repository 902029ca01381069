// The write path's rows bound and read by position (store/row-columns.ts):
// the lists name every column of their tables in the tables' own order, so a
// row read by position is the row `SELECT *` gives, key order and all; and a
// handoff and a task written and updated through the store read back whole.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { acceptHandoff, cancelTask, completeHandoff, createHandoff, type Room } from '../helpers/engine.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';
import {
  EVENT_INSERTED,
  HANDOFF_COLUMNS,
  HANDOFF_UPDATED,
  TASK_COLUMNS,
  TASK_UPDATED,
} from '../../src/store/row-columns.js';

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom(['alice', 'bob']);
  room = t.room;
});
afterEach(() => t.close());

const columnsOf = (table: string) =>
  (room.sidecar.db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name);
const selectAll = (table: string, id: string) =>
  room.sidecar.db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Record<string, unknown>;

test("each list names its table's columns, in the table's order", () => {
  expect(columnsOf('handoffs')).toEqual([...HANDOFF_COLUMNS]);
  expect(columnsOf('tasks')).toEqual([...TASK_COLUMNS]);
  expect(columnsOf('events')).toEqual(['id', ...EVENT_INSERTED]);
  // An update changes what may change and never the row's id.
  expect(HANDOFF_UPDATED).not.toContain('id');
  expect(TASK_UPDATED).not.toContain('id');
});

test('a handoff and its task read by position are the rows SELECT * gives, through an update of each', () => {
  const { handoff } = createHandoff(room, caller('alice'), {
    summary: 'Read me back',
    constraints: 'none',
    assignee: 'bob',
    artifacts: [{ uri: 'file:///report.md' }],
    idempotency_key: 'k-1',
  });
  const readBack = () => {
    const handoffRow = room.store.getHandoff(handoff.handoff_id)!;
    const taskRow = room.store.getTask(handoff.task_id)!;
    expect(handoffRow).toStrictEqual(selectAll('handoffs', handoff.handoff_id));
    expect(Object.keys(handoffRow)).toEqual(Object.keys(selectAll('handoffs', handoff.handoff_id)));
    expect(taskRow).toStrictEqual(selectAll('tasks', handoff.task_id));
    expect(Object.keys(taskRow)).toEqual(Object.keys(selectAll('tasks', handoff.task_id)));
    return { handoffRow, taskRow };
  };
  const made = readBack();
  expect(made.handoffRow).toMatchObject({
    status: 'open',
    constraints: 'none',
    idempotency_key: 'k-1',
    assignee: 'bob',
  });
  expect(made.taskRow).toMatchObject({ status: 'working', handoff_id: handoff.handoff_id });

  acceptHandoff(room, caller('bob'), { handoff_id: handoff.handoff_id });
  completeHandoff(room, caller('bob'), {
    handoff_id: handoff.handoff_id,
    result: { content: [{ type: 'text', text: 'done' }] },
  });
  const done = readBack();
  expect(done.handoffRow.status).toBe('result_ready');
  expect(done.handoffRow.result_json).toContain('done');
  expect(done.handoffRow.accepted_at).toEqual(expect.any(Number));
  expect(done.taskRow.status).toBe('completed');
  expect(done.taskRow.result_json).not.toBeNull();
  expect(room.store.getHandoff('h_none')).toBeUndefined();
  expect(room.store.getTask('t_none')).toBeUndefined();
});

test('a cancelled task and its handoff read back with every column the update changed', () => {
  const { handoff } = createHandoff(room, caller('alice'), { summary: 'Cancel me' });
  cancelTask(room, caller('alice'), { task_id: handoff.task_id });
  expect(room.store.getHandoff(handoff.handoff_id)).toStrictEqual(selectAll('handoffs', handoff.handoff_id));
  expect(room.store.getHandoff(handoff.handoff_id)).toMatchObject({
    status: 'cancelled',
    cancelled_at: expect.any(Number),
  });
  expect(room.store.getTask(handoff.task_id)).toStrictEqual(selectAll('tasks', handoff.task_id));
  expect(room.store.getTask(handoff.task_id)?.status).toBe('cancelled');
});
