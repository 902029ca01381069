// Group commit with the log's fsync the room's own (store/wal-sync.ts), here
// one that ends when the test says, as on the thread pool: a
// batch's answers and events wait for the fsync that covers it, batches
// settle in the order they opened whichever fsync ends first, a failed fsync
// refuses the batch's answers and every answer after it (reads too, since
// SQLite already shows what may not be on disk), and a write that must be on
// disk before it returns syncs on the thread.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { isStorageError, type StorageError } from '../../src/errors.js';
import { WalSync, type LogSync } from '../../src/store/wal-sync.js';
import { change, createHandoff, type Room } from '../helpers/engine.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');

/** A log whose fsyncs end when the test says. */
class HeldLog implements LogSync {
  readonly pending: { resolve(): void; reject(error: Error): void }[] = [];
  syncedNow = 0;
  synced(): Promise<void> {
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }
  syncNow(): void {
    this.syncedNow += 1;
  }
  close(): void {}
}

let t: TestRoom;
let room: Room;
let log: HeldLog;
let published: string[];
beforeEach(() => {
  t = makeRoom(['alice', 'bob']);
  room = t.room;
  published = [];
  room.eventListeners.add((events) => {
    for (const event of events) {
      if (event.type === 'handoff.created') published.push(room.store.getHandoff(event.handoff_id!)!.summary);
    }
  });
  log = new HeldLog();
  room.commits.start(log);
});
afterEach(() => t.close());

const turn = () => new Promise((resolve) => setImmediate(resolve));
/** Two turns of the event loop: a batch opened now has committed after them (it stays open one turn more). */
const turns = async () => {
  await turn();
  await turn();
};
/** A handoff created as a request would: its answer waits for the disk. */
const create = (summary: string) =>
  room.commits.durably(async () => createHandoff(room, alice, { summary, assignee: 'bob' }).handoff.summary);
const outcome = <T>(promise: Promise<T>) => {
  const seen: { value?: T; error?: unknown; done: boolean } = { done: false };
  promise.then(
    (value) => {
      seen.value = value;
      seen.done = true;
    },
    (error: unknown) => {
      seen.error = error;
      seen.done = true;
    },
  );
  return seen;
};

test('a change made in the turn after its batch opened shares its commit', async () => {
  const first = outcome(create('first'));
  await turn();
  expect(room.sidecar.db.inTransaction).toBe(true); // still open
  const second = outcome(create('second'));
  await turn();
  expect(room.sidecar.db.inTransaction).toBe(false); // committed, both in it
  expect(log.pending).toHaveLength(1);
  log.pending[0]!.resolve();
  await turns();
  expect([first, second]).toMatchObject([
    { done: true, value: 'first' },
    { done: true, value: 'second' },
  ]);
  expect(published).toEqual(['first', 'second']);
});

test('an answer and its events wait for the fsync of the log that covers its commit', async () => {
  const answer = outcome(create('one'));
  await turns();
  expect(room.sidecar.db.inTransaction).toBe(false); // committed
  expect(log.pending).toHaveLength(1);
  await turns();
  expect(answer.done).toBe(false);
  expect(published).toEqual([]);
  log.pending[0]!.resolve();
  await turns();
  expect(answer).toMatchObject({ done: true, value: 'one' });
  expect(published).toEqual(['one']);
});

test('a batch committed while the last one’s fsync runs settles after it, whichever fsync ends first', async () => {
  const first = outcome(create('first'));
  await turns();
  const second = outcome(create('second'));
  await turns();
  expect(log.pending).toHaveLength(2); // two batches, the first not yet on disk when the second committed
  log.pending[1]!.resolve(); // covers both
  await turns();
  expect(first).toMatchObject({ done: true, value: 'first' });
  expect(second).toMatchObject({ done: true, value: 'second' });
  expect(published).toEqual(['first', 'second']);
  log.pending[0]!.resolve(); // late: nothing more
  await turns();
  expect(published).toEqual(['first', 'second']);
});

test('a failed fsync of the log: the batch is refused as SQLite says a failed fsync, and so is every answer after it', async () => {
  const fatal: StorageError[] = [];
  room.commits.verdicts.onFatal((error) => fatal.push(error));
  const answer = outcome(create('lost?'));
  const read = outcome(room.commits.durably(async () => 'a read beside it'));
  await turns();
  log.pending[0]!.reject(new Error('EIO: i/o error, fdatasync'));
  await turns();
  expect(answer.done).toBe(true);
  expect(isStorageError(answer.error)).toBe(true);
  expect(answer.error).toMatchObject({ fatal: true, reason: 'I/O error', details: { cause: 'SQLITE_IOERR_FSYNC' } });
  expect(read.error).toBe(answer.error);
  expect(fatal).toEqual([answer.error]);
  expect(published).toEqual([]);
  // SQLite shows the batch, which may not be on disk: nothing answers from now on, reads included.
  await expect(room.commits.durably(async () => 'a later read')).rejects.toBe(answer.error);
  expect(() => change(room, () => undefined)).toThrow(answer.error as Error);
});

test('a change that must be on disk before it returns syncs the log on the thread, settling the batches before it in order', async () => {
  const first = outcome(create('waiting'));
  await turns();
  expect(log.pending).toHaveLength(1);
  const now = room.commits.durably(async () =>
    change(room, () => createHandoff(room, alice, { summary: 'now' }).handoff.summary, { durableNow: true }),
  );
  expect(log.syncedNow).toBe(1);
  expect(published).toEqual(['waiting', 'now']); // settled before the change returned
  expect(await now).toBe('now');
  await turns();
  expect(first).toMatchObject({ done: true, value: 'waiting' });
  log.pending[0]!.resolve(); // its own fsync, late: nothing more
  await turns();
  expect(published).toEqual(['waiting', 'now']);
});

test('the served room’s sidecar leaves the log’s fsync to the room while it groups, and SQLite syncs again after', async () => {
  room.commits.stop();
  const synchronous = () => room.sidecar.db.pragma('synchronous', { simple: true });
  expect(synchronous()).toBe(2); // FULL
  const wal = WalSync.open(room.sidecar.db)!;
  let syncs = 0;
  const synced = wal.synced.bind(wal);
  wal.synced = () => ((syncs += 1), synced());
  room.commits.start(wal);
  expect(synchronous()).toBe(1); // NORMAL: the room fsyncs the log
  expect(await create('synced by the room')).toBe('synced by the room');
  expect(syncs).toBe(1);
  room.commits.stop();
  expect(synchronous()).toBe(2);
});
