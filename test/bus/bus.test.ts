import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Bus } from '../../src/bus/bus.js';
import { toEvent } from '../../src/engine/row-mapping.js';
import {
  acceptHandoff,
  cancelTask,
  createHandoff,
  DomainError,
  type Room,
  type RoomChange,
} from '../helpers/engine.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

describe('Bus', () => {
  test('delivers in order to every subscriber', async () => {
    const bus = new Bus<number>();
    const a = bus.subscribe();
    const b = bus.subscribe();
    for (const n of [1, 2, 3]) bus.publish(n);
    expect([await a.next(), await a.next(), await a.next()]).toEqual([1, 2, 3]);
    expect([await b.next(), await b.next(), await b.next()]).toEqual([1, 2, 3]);
  });

  test('a sink gets what one publish carries in one call, in order; subscribers get each message', async () => {
    const bus = new Bus<number>();
    const calls: (readonly number[])[] = [];
    bus.attach({ size: 0, deliver: (messages) => calls.push([...messages]), closeAll: () => {} });
    const sub = bus.subscribe();
    bus.publish(1, 2, 3);
    bus.publish();
    bus.publish(4);
    expect(calls).toEqual([[1, 2, 3], [4]]);
    expect([await sub.next(), await sub.next(), await sub.next(), await sub.next()]).toEqual([1, 2, 3, 4]);
  });

  test('a waiting reader is woken by the next message', async () => {
    const bus = new Bus<string>();
    const sub = bus.subscribe();
    const pending = sub.next();
    bus.publish('hello');
    expect(await pending).toBe('hello');
  });

  test('a subscriber that falls behind is dropped with a reason; the others and the writer carry on', async () => {
    const bus = new Bus<number>();
    const slow = bus.subscribe({ maxQueue: 3 });
    const fast = bus.subscribe({ maxQueue: 3 });
    const reasons: string[] = [];
    slow.onClose((reason) => reasons.push(reason));
    const fastSeen: number[] = [];
    for (let n = 1; n <= 10; n++) {
      bus.publish(n); // never blocks, whatever the subscribers do
      fastSeen.push((await fast.next())!);
    }
    expect(fastSeen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(reasons).toEqual(['lagging']);
    expect(slow.closedReason).toBe('lagging');
    // Nothing from the gap is replayed: the dropped subscriber just ends.
    expect(await slow.next()).toBeNull();
    expect(bus.size).toBe(1);
  });

  test('closing ends iteration and frees the subscriber', async () => {
    const bus = new Bus<number>();
    const sub = bus.subscribe();
    bus.publish(1);
    const seen: number[] = [];
    const reading = (async () => {
      for await (const n of sub) seen.push(n);
    })();
    await new Promise((resolve) => setTimeout(resolve, 10));
    sub.close();
    await reading;
    expect(seen).toEqual([1]);
    expect(bus.size).toBe(0);
    bus.publish(2);
    expect(sub.pending).toBe(0);
  });

  test('filters are applied at publish time, and a throwing filter only ends its own subscription', async () => {
    const bus = new Bus<number>();
    const even = bus.subscribe({ filter: (n) => n % 2 === 0 });
    const broken = bus.subscribe({
      filter: () => {
        throw new Error('boom');
      },
    });
    bus.publish(1);
    bus.publish(2);
    expect(await even.next()).toBe(2);
    expect(broken.closedReason).toBe('closed');
  });
});

describe('the engine publishes after commit', () => {
  let t: TestRoom;
  let room: Room;
  beforeEach(() => {
    t = makeRoom();
    room = t.room;
  });
  afterEach(() => t.close());

  test('each committed change arrives once, with the event and the committed handoff and task', async () => {
    const sub = room.bus.subscribe();
    const { handoff } = createHandoff(room, caller('alice'), { summary: 'x', assignee: 'bob' });
    acceptHandoff(room, caller('bob'), { handoff_id: handoff.handoff_id });
    const created = (await sub.next())!;
    const accepted = (await sub.next())!;
    expect(created.event).toMatchObject({ type: 'handoff.created', handoff_id: handoff.handoff_id });
    expect(created.handoff?.status).toBe('open');
    expect(created.task).toMatchObject({ owner: 'alice', assignee: null, detailed: { status: 'working' } });
    expect(accepted.event.type).toBe('handoff.accepted');
    expect(accepted.task).toMatchObject({ owner: 'alice', assignee: 'bob' });
    // What was published is what a reader of the sidecar sees, field for field.
    const stored = room.store.listHandoffEvents(handoff.handoff_id, 0, 10).map(toEvent);
    expect(stored).toEqual([created.event, accepted.event]);
    expect(sub.pending).toBe(0);
  });

  test('a refused change publishes nothing', () => {
    const sub = room.bus.subscribe();
    expect(() => cancelTask(room, caller('alice'), { task_id: 'tk_nope' })).toThrow(DomainError);
    expect(sub.pending).toBe(0);
  });

  test('a lagging live subscriber is dropped while the room goes on writing', async () => {
    const lagging = room.bus.subscribe({ maxQueue: 5 });
    const alice = caller('alice');
    const seen: RoomChange[] = [];
    const keeping = room.bus.subscribe({ maxQueue: 5 });
    for (let i = 0; i < 10; i++) {
      const { handoff } = createHandoff(room, alice, { summary: `n${i}` });
      cancelTask(room, alice, { task_id: handoff.task_id });
      // a subscriber that keeps up drains its queue
      while (keeping.pending > 0) seen.push((await keeping.next())!);
    }
    expect(lagging.closedReason).toBe('lagging');
    expect(keeping.closedReason).toBeNull();
    expect(seen).toHaveLength(20);
    expect(room.store.eventStats().n).toBe(4 + 20); // participants plus every change
  });

  test('closing the room ends every subscription with shutdown', () => {
    const sub = room.bus.subscribe();
    room.close();
    expect(sub.closedReason).toBe('shutdown');
  });
});
