import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  acceptHandoff,
  cancelTask,
  completeHandoff,
  createHandoff,
  listHandoffEvents,
  limits,
  LOCAL_OPERATOR,
  proposeChange,
  removeParticipant,
  syncArtifact,
  withdrawProposal,
  type Room,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const bob = caller('bob');

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom();
  room = t.room;
});
afterEach(() => t.close());

const countRows = (table: string): number =>
  (room.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('idempotent create', () => {
  test('same participant and key: the original handoff and task come back and nothing is written', () => {
    const first = createHandoff(room, alice, { summary: 'Translate', idempotency_key: 'job-1' });
    const rows = [countRows('handoffs'), countRows('tasks'), countRows('events')];
    const second = createHandoff(room, alice, {
      summary: 'Something else entirely',
      assignee: 'bob',
      idempotency_key: 'job-1',
    });
    expect(second.replayed).toBe(true);
    expect(second.handoff).toEqual(first.handoff);
    expect(second.task).toEqual(first.task);
    expect([countRows('handoffs'), countRows('tasks'), countRows('events')]).toEqual(rows);
  });

  test('the replay reflects the current state of the original', () => {
    const first = createHandoff(room, alice, { summary: 'Translate', assignee: 'bob', idempotency_key: 'job-1' });
    acceptHandoff(room, bob, { handoff_id: first.handoff.handoff_id });
    const again = createHandoff(room, alice, { summary: 'Translate', idempotency_key: 'job-1' });
    expect(again).toMatchObject({
      replayed: true,
      handoff: { handoff_id: first.handoff.handoff_id, status: 'accepted' },
    });
  });

  test('the key is per participant', () => {
    const a = createHandoff(room, alice, { summary: 'x', idempotency_key: 'k' });
    const b = createHandoff(room, bob, { summary: 'x', idempotency_key: 'k' });
    expect(b.replayed).toBe(false);
    expect(b.handoff.handoff_id).not.toBe(a.handoff.handoff_id);
  });

  test('a replay is answered even when the room is at the active-task limit', () => {
    const first = createHandoff(room, alice, { summary: 'x', idempotency_key: 'k' });
    for (let i = 1; i < limits.MAX_ACTIVE_TASKS; i++) createHandoff(room, alice, { summary: `task ${i}` });
    expect(createHandoff(room, alice, { summary: 'x', idempotency_key: 'k' }).handoff.handoff_id).toBe(
      first.handoff.handoff_id,
    );
  });
});

describe('active task limit', () => {
  test('the 33rd active task is refused with a clear error and writes nothing', () => {
    const made = Array.from({ length: 32 }, (_, i) => createHandoff(room, alice, { summary: `task ${i}` }));
    const error = expectRefused(
      room,
      () => createHandoff(room, alice, { summary: 'one too many' }),
      'limit_reached',
      'the room already has 32 active tasks (working or input_required), the most it allows: 32 of them yours. Complete or cancel one of yours first',
    );
    expect(error.details).toEqual({ limit: 32, owners: [{ participant: 'alice', active: 32, removed: false }] });
    // A task that ends frees a place.
    cancelTask(room, alice, { task_id: made[0]!.handoff.task_id });
    expect(createHandoff(room, alice, { summary: 'now it fits' }).task?.status).toBe('working');
  });

  test("the refusal says whose the active tasks are, a removed participant's among them", () => {
    for (let i = 0; i < 20; i++) createHandoff(room, bob, { summary: `bob's ${i}`, assignee: 'alice' });
    for (let i = 0; i < 12; i++) createHandoff(room, alice, { summary: `alice's ${i}` });
    removeParticipant(room, LOCAL_OPERATOR, { name: 'bob' });
    const error = expectRefused(
      room,
      () => createHandoff(room, caller('carol'), { summary: 'one too many' }),
      'limit_reached',
      'the room already has 32 active tasks (working or input_required), the most it allows: none of them yours; ' +
        'bob 20 (removed from the room), alice 12. One must end first; only its owner may cancel it',
    );
    expect(error.details).toEqual({
      limit: 32,
      owners: [
        { participant: 'bob', active: 20, removed: true },
        { participant: 'alice', active: 12, removed: false },
      ],
    });
    expectRefused(
      room,
      () => createHandoff(room, alice, { summary: 'no' }),
      'limit_reached',
      /12 of them yours; bob 20/,
    );
  });

  test('input_required counts as active; completed does not', () => {
    const made = Array.from({ length: 32 }, (_, i) =>
      createHandoff(room, alice, { summary: `task ${i}`, assignee: 'bob' }),
    );
    acceptHandoff(room, bob, { handoff_id: made[0]!.handoff.handoff_id });
    completeHandoff(room, bob, { handoff_id: made[0]!.handoff.handoff_id, result: { content: [] } });
    expect(createHandoff(room, alice, { summary: 'fits' }).replayed).toBe(false);
    expectRefused(room, () => createHandoff(room, alice, { summary: 'no' }), 'limit_reached', /32 active tasks/);
  });
});

describe('open proposals limit', () => {
  test("a participant's 33rd open proposal is refused and writes nothing; others may still propose; a decision frees a place", () => {
    syncArtifact(room);
    const propose = (who: typeof alice, i: number) =>
      proposeChange(room, who, { base_revision: 1, content: `# Test room\n${i}\n`, summary: `change ${i}` });
    const made = Array.from({ length: limits.MAX_OPEN_PROPOSALS }, (_, i) => propose(alice, i));
    const error = expectRefused(
      room,
      () => propose(alice, 99),
      'limit_reached',
      'alice already has 32 open proposals, the most one participant may have; withdraw one or wait for a decision',
    );
    expect(error.details).toEqual({ limit: 32 });
    expect(propose(bob, 1).proposal.status).toBe('open');
    withdrawProposal(room, alice, { proposal_id: made[0]!.proposal.proposal_id });
    expect(propose(alice, 99).proposal.status).toBe('open');
  });
});

describe('size limits', () => {
  test('summary: 2,000 code points pass, 2,001 do not (counted in code points, not UTF-16 units)', () => {
    expect(createHandoff(room, alice, { summary: '😀'.repeat(2000) }).handoff.summary).toHaveLength(4000);
    expectRefused(
      room,
      () => createHandoff(room, alice, { summary: 'a'.repeat(2001) }),
      'invalid_input',
      /summary must NOT have more than 2000 characters/,
    );
  });

  test('constraints: 8,000 pass, 8,001 do not', () => {
    createHandoff(room, alice, { summary: 'x', constraints: 'c'.repeat(8000) });
    expectRefused(
      room,
      () => createHandoff(room, alice, { summary: 'x', constraints: 'c'.repeat(8001) }),
      'invalid_input',
      /constraints must NOT have more than 8000 characters/,
    );
  });

  test('result: 256 KiB of JSON passes, one byte more is too large', () => {
    const { handoff } = createHandoff(room, alice, { summary: 'x', assignee: 'bob' });
    acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
    const resultOfSize = (bytes: number) => {
      const empty = JSON.stringify({ content: [{ type: 'text', text: '' }] }).length;
      return { content: [{ type: 'text' as const, text: 'r'.repeat(bytes - empty) }] };
    };
    const over = resultOfSize(256 * 1024 + 1);
    expect(JSON.stringify(over).length).toBe(256 * 1024 + 1);
    const error = expectRefused(
      room,
      () => completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result: over }),
      'too_large',
      /result must NOT be larger than 262144 bytes/,
    );
    expect(error.details).toEqual({ limit: 262144 });
    const fits = completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result: resultOfSize(256 * 1024) });
    expect(fits.handoff.status).toBe('result_ready');
  });

  test('multi-byte characters count as their UTF-8 bytes in the result limit', () => {
    const { handoff } = createHandoff(room, alice, { summary: 'x', assignee: 'bob' });
    acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
    const text = 'é'.repeat(140_000); // 140,000 characters, 280,000 bytes
    expectRefused(
      room,
      () =>
        completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result: { content: [{ type: 'text', text }] } }),
      'too_large',
      /262144 bytes/,
    );
    expect(listHandoffEvents(room, alice, { handoff_id: handoff.handoff_id }).events.map((e) => e.type)).toEqual([
      'handoff.created',
      'handoff.accepted',
    ]);
  });

  test('nesting: 64 levels of objects and arrays pass, one more is refused before validating (no stack overflow)', () => {
    const { handoff } = createHandoff(room, alice, { summary: 'x', assignee: 'bob' });
    acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
    // The input object, result and structuredContent are three levels; `a` adds `levels` arrays.
    const nested = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
    const resultWith = (levels: number) => ({ content: [], structuredContent: { a: nested(levels) } });
    for (const levels of [62, 100_000]) {
      expectRefused(
        room,
        () => completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result: resultWith(levels) }),
        'invalid_input',
        /^result nests deeper than 64 levels$/,
      );
    }
    const fits = completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result: resultWith(61) });
    expect(fits.handoff.status).toBe('result_ready');
  });
});
