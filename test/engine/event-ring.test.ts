import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  acceptHandoff,
  cancelTask,
  createHandoff,
  listHandoffEvents,
  limits,
  listHandoffs,
  LOCAL_OPERATOR,
  type Room,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const bob = caller('bob');

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom([]);
  room = t.room;
  room.store.insertParticipant({ name: 'alice', created_at: 0 });
  room.store.insertParticipant({ name: 'bob', created_at: 0 });
});
afterEach(() => t.close());

const stats = () => room.store.eventStats();

test('the ring keeps the newest 2,000 events, pruned back to them once it holds more than 2,200; the cursor tells the gap', () => {
  const watched = createHandoff(room, alice, { summary: 'watched', assignee: 'bob' }).handoff; // event 1
  acceptHandoff(room, bob, { handoff_id: watched.handoff_id }); // event 2
  const page = listHandoffEvents(room, alice, { handoff_id: watched.handoff_id });
  expect(page).toMatchObject({ gap: false, has_more: false, next_after: 2 });
  expect(page.events.map((e) => e.id)).toEqual([1, 2]);

  // Fill the ring to its size and slack: each create + cancel pair is two events. Nothing is pruned yet.
  const pairs = (count: number) => {
    for (let i = 0; i < count; i++) {
      const { handoff } = createHandoff(room, alice, { summary: `filler ${i}` });
      cancelTask(room, alice, { task_id: handoff.task_id });
    }
  };
  pairs(1099);
  expect(limits.EVENT_RING_SIZE + limits.EVENT_RING_SLACK).toBe(2200);
  expect(stats()).toEqual({ n: 2200, oldest: 1, newest: 2200 });
  expect(listHandoffEvents(room, alice, { handoff_id: watched.handoff_id }).gap).toBe(false);

  // Event 2,201 passes it: that commit keeps the newest 2,000 (202 to 2,201); the next one adds to them.
  pairs(1);
  expect(stats()).toEqual({ n: 2001, oldest: 202, newest: 2202 });

  // From the start: both of its events are gone, and the answer says so, once: next_after steps past them.
  expect(listHandoffEvents(room, alice, { handoff_id: watched.handoff_id })).toEqual({
    events: [],
    next_after: 2,
    has_more: false,
    gap: true,
  });
  expect(listHandoffEvents(room, alice, { handoff_id: watched.handoff_id, after: 2 })).toMatchObject({
    next_after: 2,
    gap: false,
  });
  // A client that had read up to event 1 missed event 2.
  expect(listHandoffEvents(room, alice, { handoff_id: watched.handoff_id, after: 1 }).gap).toBe(true);
  // A client that had read everything missed nothing.
  expect(listHandoffEvents(room, alice, { handoff_id: watched.handoff_id, after: 2 }).gap).toBe(false);

  // The handoff itself outlives its events, and new events continue the ids.
  cancelTask(room, alice, { task_id: watched.task_id });
  const later = listHandoffEvents(room, alice, { handoff_id: watched.handoff_id, after: 2 });
  expect(later).toMatchObject({ gap: false, next_after: 2203 });
  expect(later.events.map((e) => [e.id, e.type])).toEqual([[2203, 'handoff.cancelled']]);
  expect(stats()).toEqual({ n: 2002, oldest: 202, newest: 2203 });

  // The next prune comes once the ring passes 2,200 again: 2,000 before it, never fewer.
  pairs(99);
  expect(stats()).toEqual({ n: 2200, oldest: 202, newest: 2401 });
  pairs(1);
  expect(stats()).toEqual({ n: 2001, oldest: 403, newest: 2403 });
});

test('ids strictly increase and are never reused after pruning', () => {
  let last = 0;
  for (let i = 0; i < 1100; i++) {
    const { handoff } = createHandoff(room, alice, { summary: `n${i}` });
    cancelTask(room, alice, { task_id: handoff.task_id });
    const newest = stats().newest!;
    expect(newest).toBe(last + 2);
    last = newest;
  }
  room.store.db.prepare('DELETE FROM events').run();
  createHandoff(room, alice, { summary: 'after a wipe' });
  expect(stats().newest).toBe(last + 1);
});

test('grouped commits prune the ring as a batch commits: until then, a batch may hold its own events beyond it', async () => {
  const watched = createHandoff(room, alice, { summary: 'watched', assignee: 'bob' }).handoff; // event 1
  acceptHandoff(room, bob, { handoff_id: watched.handoff_id }); // event 2
  for (let i = 0; i < 1099; i++) {
    const { handoff } = createHandoff(room, alice, { summary: `filler ${i}` });
    cancelTask(room, alice, { task_id: handoff.task_id });
  }
  expect(stats()).toEqual({ n: 2200, oldest: 1, newest: 2200 });
  room.commits.start();
  try {
    // One batch of four events: all of them in the ring until it commits.
    const release = room.commits.hold();
    for (let i = 0; i < 2; i++) {
      const { handoff } = createHandoff(room, alice, { summary: `batched ${i}` });
      cancelTask(room, alice, { task_id: handoff.task_id });
    }
    expect(stats()).toEqual({ n: 2204, oldest: 1, newest: 2204 });
    release();
    await room.commits.idle();
    expect(room.sidecar.db.inTransaction).toBe(false);
    // Committed: the newest 2,000, and the watched handoff knows it lost both of its events.
    expect(stats()).toEqual({ n: limits.EVENT_RING_SIZE, oldest: 205, newest: 2204 });
    expect(listHandoffEvents(room, alice, { handoff_id: watched.handoff_id })).toMatchObject({ events: [], gap: true });
    expect(listHandoffEvents(room, alice, { handoff_id: watched.handoff_id, after: 2 }).gap).toBe(false);
  } finally {
    room.commits.stop();
  }
  // One change at a time again: the ring grows from 2,000 until it passes 2,200.
  createHandoff(room, alice, { summary: 'alone' });
  expect(stats()).toEqual({ n: 2001, oldest: 205, newest: 2205 });
});

test('paging with after and limit', () => {
  const { handoff } = createHandoff(room, alice, { summary: 'x', assignee: 'bob' });
  acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
  cancelTask(room, alice, { task_id: handoff.task_id });
  const first = listHandoffEvents(room, alice, { handoff_id: handoff.handoff_id, limit: 2 });
  expect(first.events.map((e) => e.type)).toEqual(['handoff.created', 'handoff.accepted']);
  expect(first.has_more).toBe(true);
  const second = listHandoffEvents(room, alice, { handoff_id: handoff.handoff_id, after: first.next_after, limit: 2 });
  expect(second.events.map((e) => e.type)).toEqual(['handoff.cancelled']);
  expect(second).toMatchObject({ has_more: false, gap: false });
  expect(second.events[0]).toMatchObject({ actor: 'alice', handoff_id: handoff.handoff_id, task_id: handoff.task_id });
  expectRefused(
    room,
    () => listHandoffEvents(room, alice, { handoff_id: handoff.handoff_id, limit: 0 }),
    'invalid_input',
    /limit must be >= 1/,
  );
  expectRefused(
    room,
    () => listHandoffEvents(room, alice, { handoff_id: handoff.handoff_id, after: -1 }),
    'invalid_input',
    /after must be >= 0/,
  );
});

test('the local operator lists handoffs newest first, a page at a time, by status', () => {
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    ids.push(createHandoff(room, alice, { summary: `h${i}` }).handoff.handoff_id);
    t.clock.advance(i % 2); // some share a creation time
  }
  cancelTask(room, alice, {
    task_id: listHandoffs(room, LOCAL_OPERATOR, {}).handoffs.find((h) => h.summary === 'h3')!.task_id,
  });
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = listHandoffs(room, LOCAL_OPERATOR, { limit: 3, ...(cursor ? { cursor } : {}) });
    expect(page.handoffs.length).toBeLessThanOrEqual(3);
    seen.push(...page.handoffs.map((h) => h.summary));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  expect(seen).toHaveLength(7);
  expect(new Set(seen).size).toBe(7);
  const created = listHandoffs(room, LOCAL_OPERATOR, {}).handoffs.map((h) => h.created_at);
  expect([...created].sort().reverse()).toEqual(created);
  expect(listHandoffs(room, LOCAL_OPERATOR, { status: 'cancelled' }).handoffs.map((h) => h.summary)).toEqual(['h3']);
  expectRefused(room, () => listHandoffs(room, LOCAL_OPERATOR, { cursor: 'garbage' }), 'invalid_input', /cursor/);
  expectRefused(room, () => listHandoffs(room, caller('bob', ['write']), {}), 'forbidden', /read/);
});
