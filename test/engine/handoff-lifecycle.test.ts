import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { CallToolResult } from '../../generated/types.js';
import {
  acceptHandoff,
  answerTaskInput,
  approveHandoff,
  cancelTask,
  completeHandoff,
  createHandoff,
  getHandoff,
  getTask,
  listHandoffEvents,
  rejectHandoff,
  requestHandoffInput,
  type Room,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const bob = caller('bob');
const carol = caller('carol');
const approver = caller('dave', ['read', 'approve']);
const result: CallToolResult = { content: [{ type: 'text', text: 'done' }], structuredContent: { ok: true } };

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom();
  room = t.room;
});
afterEach(() => t.close());

const eventTypes = (handoffId: string): string[] =>
  listHandoffEvents(room, alice, { handoff_id: handoffId }).events.map((e) => e.type);

function created(assignee?: string) {
  return createHandoff(room, alice, { summary: 'Review the intro', ...(assignee ? { assignee } : {}) });
}
function accepted() {
  const { handoff } = created('bob');
  acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
  return handoff;
}
function resultReady() {
  const handoff = accepted();
  completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result });
  return handoff;
}

describe('allowed transitions', () => {
  test('create: handoff open, task working owned by the caller, one event', () => {
    const out = createHandoff(room, alice, {
      summary: 'Review the intro',
      constraints: 'Keep it short',
      assignee: 'bob',
      artifacts: [{ uri: 'workspace:///room.md', title: 'the room', revision: 3 }],
    });
    expect(out.replayed).toBe(false);
    expect(out.handoff).toMatchObject({
      status: 'open',
      owner: 'alice',
      assignee: 'bob',
      summary: 'Review the intro',
      constraints: 'Keep it short',
      artifacts: [{ uri: 'workspace:///room.md', title: 'the room', revision: 3 }],
      result: null,
      decision: null,
    });
    expect(out.task).toMatchObject({
      status: 'working',
      taskId: out.handoff.task_id,
      ttlMs: 86_400_000,
      pollIntervalMs: 5000,
    });
    const row = room.store.getTask(out.handoff.task_id)!;
    expect(row).toMatchObject({
      owner: 'alice',
      assignee: null,
      operation: 'handoff.execute',
      schema_version: 1,
      correlation_id: out.handoff.correlation_id,
    });
    expect(eventTypes(out.handoff.handoff_id)).toEqual(['handoff.created']);
  });

  test('accept by the named assignee: handoff accepted, task still working with the assignee recorded', () => {
    const { handoff } = created('bob');
    const out = acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
    expect(out.handoff).toMatchObject({ status: 'accepted', assignee: 'bob' });
    expect(out.handoff.accepted_at).not.toBeNull();
    expect(out.task).toMatchObject({ status: 'working' });
    expect(room.store.getTask(handoff.task_id)!.assignee).toBe('bob');
    expect(eventTypes(handoff.handoff_id)).toEqual(['handoff.created', 'handoff.accepted']);
  });

  test('accept without a named assignee: anyone with write may take it', () => {
    const { handoff } = created();
    expect(acceptHandoff(room, carol, { handoff_id: handoff.handoff_id }).handoff.assignee).toBe('carol');
  });

  test('request input → input_required; answers via tasks/update → working again', () => {
    const handoff = accepted();
    const first = requestHandoffInput(room, bob, {
      handoff_id: handoff.handoff_id,
      key: 'tone',
      message: 'Formal or casual?',
    });
    expect(first.key).toBe('tone');
    const second = requestHandoffInput(room, bob, {
      handoff_id: handoff.handoff_id,
      message: 'How long?',
      requested_schema: { type: 'object', properties: { words: { type: 'integer' } }, required: ['words'] },
    });
    expect(second.key).toMatch(/^in_/);
    expect(second.task.status).toBe('input_required');
    if (second.task.status !== 'input_required') throw new Error('unreachable');
    expect(Object.keys(second.task.inputRequests).sort()).toEqual([second.key, 'tone'].sort());
    expect(second.task.inputRequests.tone).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Formal or casual?',
        requestedSchema: {
          type: 'object',
          properties: { answer: { type: 'string', title: 'Answer' } },
          required: ['answer'],
        },
      },
    });

    // One answer (plus an unknown key, ignored): still waiting for the other.
    const partly = answerTaskInput(room, alice, {
      task_id: handoff.task_id,
      input_responses: { tone: { action: 'accept', content: { answer: 'casual' } }, nope: { action: 'cancel' } },
    });
    expect(partly.answered).toEqual(['tone']);
    expect(partly.task.status).toBe('input_required');
    if (partly.task.status !== 'input_required') throw new Error('unreachable');
    expect(Object.keys(partly.task.inputRequests)).toEqual([second.key]);

    // Answering the same key again is ignored and writes nothing.
    const again = answerTaskInput(room, alice, {
      task_id: handoff.task_id,
      input_responses: { tone: { action: 'decline' } },
    });
    expect(again.answered).toEqual([]);

    const done = answerTaskInput(room, alice, {
      task_id: handoff.task_id,
      input_responses: { [second.key]: { action: 'accept', content: { words: 300 } } },
    });
    expect(done.task.status).toBe('working');

    // The assignee reads the answers on the handoff.
    const seen = getHandoff(room, bob, { handoff_id: handoff.handoff_id }).handoff.inputs;
    expect(seen.map((i) => [i.key, i.response, i.answered_by])).toEqual(
      expect.arrayContaining([
        ['tone', { action: 'accept', content: { answer: 'casual' } }, 'alice'],
        [second.key, { action: 'accept', content: { words: 300 } }, 'alice'],
      ]),
    );
    expect(eventTypes(handoff.handoff_id)).toEqual([
      'handoff.created',
      'handoff.accepted',
      'task.input_required',
      'task.input_required',
      'task.input_received',
      'task.input_received',
    ]);
  });

  test('complete with a result: task completed, handoff result_ready with the result copied', () => {
    const handoff = accepted();
    const out = completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result });
    expect(out.already_completed).toBe(false);
    expect(out.handoff).toMatchObject({ status: 'result_ready', result });
    expect(out.task).toMatchObject({ status: 'completed', result: { ...result, resultType: 'complete' } });
    expect(getTask(room, alice, { task_id: handoff.task_id }).status).toBe('completed');
    expect(eventTypes(handoff.handoff_id).at(-1)).toBe('handoff.result_ready');
  });

  test('complete with an error: task failed, handoff cancelled with the error', () => {
    const handoff = accepted();
    const error = { code: -32000, message: 'could not reach the source' };
    const out = completeHandoff(room, bob, { handoff_id: handoff.handoff_id, error });
    expect(out.handoff).toMatchObject({ status: 'cancelled', error, result: null });
    expect(out.task).toMatchObject({ status: 'failed', error, statusMessage: error.message });
    expect(eventTypes(handoff.handoff_id).at(-1)).toBe('task.failed');
  });

  test('a second completion returns the first result and changes nothing', () => {
    const handoff = resultReady();
    const before = room.store.db.prepare('SELECT count(*) AS n FROM events').get();
    const again = completeHandoff(room, bob, {
      handoff_id: handoff.handoff_id,
      result: { content: [{ type: 'text', text: 'a different answer' }] },
    });
    expect(again.already_completed).toBe(true);
    expect(again.handoff.result).toEqual(result);
    expect(again.task).toMatchObject({ status: 'completed', result: { ...result, resultType: 'complete' } });
    const asError = completeHandoff(room, bob, { handoff_id: handoff.handoff_id, error: { code: 1, message: 'late' } });
    expect(asError.already_completed).toBe(true);
    expect(asError.handoff).toMatchObject({ status: 'result_ready', result, error: null });
    expect(room.store.db.prepare('SELECT count(*) AS n FROM events').get()).toEqual(before);
  });

  test('approve records the decision on the handoff and does not touch the task', () => {
    const handoff = resultReady();
    const taskBefore = room.store.getTask(handoff.task_id);
    t.clock.advance(1000);
    const out = approveHandoff(room, approver, { handoff_id: handoff.handoff_id, note: 'lovely' });
    expect(out.handoff).toMatchObject({
      status: 'approved',
      decision: { decision: 'approved', by: 'dave', note: 'lovely' },
    });
    expect(room.store.getTask(handoff.task_id)).toEqual(taskBefore);
    expect(eventTypes(handoff.handoff_id).at(-1)).toBe('handoff.approved');
  });

  test('reject records the decision and does not touch the task', () => {
    const handoff = resultReady();
    const taskBefore = room.store.getTask(handoff.task_id);
    const out = rejectHandoff(room, approver, { handoff_id: handoff.handoff_id });
    expect(out.handoff).toMatchObject({
      status: 'rejected',
      decision: { decision: 'rejected', by: 'dave', note: null },
    });
    expect(room.store.getTask(handoff.task_id)).toEqual(taskBefore);
    expect(eventTypes(handoff.handoff_id).at(-1)).toBe('handoff.rejected');
  });

  test.each([
    ['open', () => created('bob')],
    ['accepted', () => ({ handoff: accepted() })],
  ])('cancel a non-terminal task (%s handoff): task and handoff cancelled', (_name, setup) => {
    const { handoff } = setup();
    const out = cancelTask(room, alice, { task_id: handoff.task_id });
    expect(out).toMatchObject({ cancelled: true, task: { status: 'cancelled', statusMessage: 'cancelled by alice' } });
    expect(getHandoff(room, alice, { handoff_id: handoff.handoff_id }).handoff.status).toBe('cancelled');
    expect(eventTypes(handoff.handoff_id).at(-1)).toBe('handoff.cancelled');
  });

  test('cancel while input_required cancels too', () => {
    const handoff = accepted();
    requestHandoffInput(room, bob, { handoff_id: handoff.handoff_id, message: 'which?' });
    expect(cancelTask(room, alice, { task_id: handoff.task_id }).task.status).toBe('cancelled');
  });

  test('cancel a terminal task: acknowledged, and it stays as it was', () => {
    const handoff = resultReady();
    const before = room.store.getTask(handoff.task_id);
    const eventsBefore = eventTypes(handoff.handoff_id);
    const out = cancelTask(room, alice, { task_id: handoff.task_id });
    expect(out.cancelled).toBe(false);
    expect(out.task.status).toBe('completed');
    expect(room.store.getTask(handoff.task_id)).toEqual(before);
    expect(getHandoff(room, alice, { handoff_id: handoff.handoff_id }).handoff.status).toBe('result_ready');
    expect(eventTypes(handoff.handoff_id)).toEqual(eventsBefore);
  });
});

describe('refused transitions change nothing', () => {
  test('wrong state', () => {
    const open = created('bob').handoff;
    const ready = resultReady();
    expectRefused(
      room,
      () => completeHandoff(room, bob, { handoff_id: open.handoff_id, result }),
      'forbidden',
      /only the assignee/,
    );
    expectRefused(
      room,
      () => acceptHandoff(room, bob, { handoff_id: ready.handoff_id }),
      'conflict',
      /is result_ready, not open/,
    );
    expectRefused(
      room,
      () => approveHandoff(room, approver, { handoff_id: open.handoff_id }),
      'conflict',
      /is open, not result_ready/,
    );
    expectRefused(
      room,
      () => rejectHandoff(room, approver, { handoff_id: open.handoff_id }),
      'conflict',
      /not result_ready/,
    );
    expectRefused(
      room,
      () => requestHandoffInput(room, bob, { handoff_id: ready.handoff_id, message: 'x' }),
      'conflict',
      /not accepted/,
    );

    approveHandoff(room, approver, { handoff_id: ready.handoff_id });
    expectRefused(
      room,
      () => approveHandoff(room, approver, { handoff_id: ready.handoff_id }),
      'conflict',
      /is approved/,
    );
    expectRefused(
      room,
      () => rejectHandoff(room, approver, { handoff_id: ready.handoff_id }),
      'conflict',
      /is approved/,
    );

    const cancelled = accepted();
    cancelTask(room, alice, { task_id: cancelled.task_id });
    expectRefused(
      room,
      () => completeHandoff(room, bob, { handoff_id: cancelled.handoff_id, result }),
      'conflict',
      /is cancelled/,
    );
    expectRefused(
      room,
      () => acceptHandoff(room, bob, { handoff_id: cancelled.handoff_id }),
      'conflict',
      /is cancelled/,
    );

    const waiting = accepted();
    requestHandoffInput(room, bob, { handoff_id: waiting.handoff_id, key: 'k', message: 'which?' });
    expectRefused(
      room,
      () => completeHandoff(room, bob, { handoff_id: waiting.handoff_id, result }),
      'conflict',
      /waiting for input/,
    );
    expectRefused(
      room,
      () => requestHandoffInput(room, bob, { handoff_id: waiting.handoff_id, key: 'k', message: 'again' }),
      'conflict',
      /already used/,
    );
  });

  test('a used input key stays used after it was answered', () => {
    const handoff = accepted();
    requestHandoffInput(room, bob, { handoff_id: handoff.handoff_id, key: 'k', message: 'which?' });
    answerTaskInput(room, alice, {
      task_id: handoff.task_id,
      input_responses: { k: { action: 'accept', content: { answer: 'a' } } },
    });
    expectRefused(
      room,
      () => requestHandoffInput(room, bob, { handoff_id: handoff.handoff_id, key: 'k', message: 'again' }),
      'conflict',
      /already used/,
    );
  });

  test('wrong participant', () => {
    const assigned = created('bob').handoff;
    expectRefused(
      room,
      () => acceptHandoff(room, carol, { handoff_id: assigned.handoff_id }),
      'forbidden',
      /assigned to bob/,
    );
    const handoff = accepted();
    expectRefused(
      room,
      () => requestHandoffInput(room, carol, { handoff_id: handoff.handoff_id, message: 'x' }),
      'forbidden',
      /only the assignee/,
    );
    expectRefused(
      room,
      () => requestHandoffInput(room, alice, { handoff_id: handoff.handoff_id, message: 'x' }),
      'forbidden',
      /only the assignee/,
    );
    expectRefused(
      room,
      () => completeHandoff(room, carol, { handoff_id: handoff.handoff_id, result }),
      'forbidden',
      /only the assignee/,
    );
    expectRefused(
      room,
      () => completeHandoff(room, alice, { handoff_id: handoff.handoff_id, result }),
      'forbidden',
      /only the assignee/,
    );
    // The assignee sees the task but neither cancels it nor answers its input.
    expectRefused(
      room,
      () => cancelTask(room, bob, { task_id: handoff.task_id }),
      'forbidden',
      /only the task's owner/,
    );
    requestHandoffInput(room, bob, { handoff_id: handoff.handoff_id, key: 'k', message: 'x' });
    expectRefused(
      room,
      () => answerTaskInput(room, bob, { task_id: handoff.task_id, input_responses: { k: { action: 'accept' } } }),
      'forbidden',
      /only the task's owner/,
    );
    // Anyone else does not even learn that the task exists.
    expectRefused(room, () => cancelTask(room, carol, { task_id: handoff.task_id }), 'not_found', /^unknown task$/);
    expectRefused(
      room,
      () => answerTaskInput(room, carol, { task_id: handoff.task_id, input_responses: { k: { action: 'accept' } } }),
      'not_found',
      /^unknown task$/,
    );
  });

  test('missing capability', () => {
    const reader = caller('carol', ['read']);
    const writer = caller('bob', ['write']);
    expectRefused(room, () => createHandoff(room, reader, { summary: 'x' }), 'forbidden', /lacks the write capability/);
    const open = created('bob').handoff;
    expectRefused(
      room,
      () => acceptHandoff(room, caller('bob', ['read']), { handoff_id: open.handoff_id }),
      'forbidden',
      /write/,
    );
    const ready = resultReady();
    expectRefused(
      room,
      () => approveHandoff(room, alice, { handoff_id: ready.handoff_id }),
      'forbidden',
      /lacks the approve capability/,
    );
    expectRefused(room, () => rejectHandoff(room, alice, { handoff_id: ready.handoff_id }), 'forbidden', /approve/);
    expectRefused(
      room,
      () => getTask(room, writer, { task_id: ready.task_id }),
      'forbidden',
      /lacks the read capability/,
    );
    expectRefused(room, () => getHandoff(room, writer, { handoff_id: ready.handoff_id }), 'forbidden', /read/);
    expectRefused(room, () => listHandoffEvents(room, writer, { handoff_id: ready.handoff_id }), 'forbidden', /read/);
    expectRefused(
      room,
      () => cancelTask(room, caller('alice', ['read']), { task_id: open.task_id }),
      'forbidden',
      /write/,
    );
  });

  test('bad input names the field and why', () => {
    expectRefused(
      room,
      () => createHandoff(room, alice, { summary: '' }),
      'invalid_input',
      /summary must NOT have fewer than 1 characters/,
    );
    expectRefused(
      room,
      () => createHandoff(room, alice, { summary: 'x', extra: 1 } as never),
      'invalid_input',
      /unknown property 'extra'/,
    );
    expectRefused(
      room,
      () => createHandoff(room, alice, { summary: 'x', assignee: 'zed' }),
      'invalid_input',
      /zed is not a participant/,
    );
    expectRefused(
      room,
      () => createHandoff(room, alice, { summary: 'x', assignee: 'no spaces' }),
      'invalid_input',
      /^assignee must be a name of letters, digits/,
    );
    expectRefused(
      room,
      () => createHandoff(room, alice, {} as never),
      'invalid_input',
      /must have required property 'summary'/,
    );
    const handoff = accepted();
    expectRefused(
      room,
      () => completeHandoff(room, bob, { handoff_id: handoff.handoff_id } as never),
      'invalid_input',
      /^input needs one of result or error$/,
    );
    expectRefused(
      room,
      () =>
        completeHandoff(room, bob, {
          handoff_id: handoff.handoff_id,
          result,
          error: { code: 1, message: 'x' },
        } as never),
      'invalid_input',
      /^input takes one of result or error, not both$/,
    );
    expectRefused(
      room,
      () =>
        completeHandoff(room, bob, {
          handoff_id: handoff.handoff_id,
          result: { content: [{ type: 'text' }] },
        } as never),
      'invalid_input',
      /result.content.0/,
    );
  });

  test('unknown ids', () => {
    expectRefused(
      room,
      () => acceptHandoff(room, bob, { handoff_id: 'ho_nope' }),
      'not_found',
      /unknown handoff ho_nope/,
    );
    expectRefused(room, () => getTask(room, alice, { task_id: 'tk_nope' }), 'not_found', /^unknown task$/);
    expectRefused(room, () => cancelTask(room, alice, { task_id: 'tk_nope' }), 'not_found', /^unknown task$/);
  });
});

describe('reading', () => {
  test('a task is visible to its owner and assignee only; others get exactly what a made-up id gets', () => {
    const handoff = accepted();
    expect(getTask(room, alice, { task_id: handoff.task_id }).taskId).toBe(handoff.task_id);
    expect(getTask(room, bob, { task_id: handoff.task_id }).taskId).toBe(handoff.task_id);
    const stranger = expectRefused(
      room,
      () => getTask(room, carol, { task_id: handoff.task_id }),
      'not_found',
      /^unknown task$/,
    );
    const madeUp = expectRefused(
      room,
      () => getTask(room, carol, { task_id: 'tk_madeup' }),
      'not_found',
      /^unknown task$/,
    );
    expect(stranger.toJSON()).toEqual(madeUp.toJSON());
  });

  test('a handoff is visible to any reader; its task only to owner and assignee', () => {
    const handoff = accepted();
    const reader = caller('carol', ['read']);
    expect(getHandoff(room, reader, { handoff_id: handoff.handoff_id })).toMatchObject({
      handoff: { handoff_id: handoff.handoff_id },
      task: null,
    });
    expect(getHandoff(room, bob, { task_id: handoff.task_id }).task?.taskId).toBe(handoff.task_id);
  });
});
