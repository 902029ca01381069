// One batch of group commit (group-commit.ts): the changes that arrived in
// two turns of the event loop, committed and synced together, and the promise
// their answers wait on; and the transaction each change runs in.
import type { Database } from 'better-sqlite3';
import type { DiskVerdicts } from './disk-verdicts.js';

/** Changes one batch takes at most; the next change commits it at once. */
export const MAX_BATCH = 256;

export interface Batch<C> {
  /** Batches are numbered from 1 in the order they open; one commits before the next opens. */
  number: number;
  changes: C[];
  /** Changes kept in the batch. */
  size: number;
  /** Changes run in the batch, refused ones included: each one's answer waits for the commit. */
  ran: number;
  /** When its COMMIT began (process.hrtime), for onCommitted. */
  started: bigint;
  /** On disk (settled resolved) or failed (settled rejected). */
  done: boolean;
  settled: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

export function openedBatch<C>(number: number): Batch<C> {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const settled = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  settled.catch(() => {}); // an answer that waits sees the failure; nobody else must
  return { number, changes: [], size: 0, ran: 0, started: 0n, done: false, settled, resolve, reject };
}

/**
 * Calls `close` at the end of the turn of the event loop after this one: a
 * batch opened now holds what arrives with this turn and what the next one
 * reads. The requests that come in while a turn runs are mostly the next
 * ones of the clients the last commit answered: closed at the end of this
 * turn, batches parted the room's writers into two groups that took turns
 * (batches of 9 to 10 changes under the bench's 16 writers); closed after
 * the next, they hold 15 of 16, and the room makes a fifth more writes a
 * second (BENCHMARKS.md). The next turn waits for nothing to arrive: a lone
 * change commits as soon.
 */
export function afterNextTurn(close: () => void): void {
  setImmediate(() => setImmediate(close));
}

/**
 * A change's transaction: `BEGIN IMMEDIATE`, or a savepoint of the batch
 * open, undone when its body throws. Made once a room: better-sqlite3's
 * `transaction()` builds four wrapper functions every time it is called.
 */
export const changeTransaction = (db: Database): (<T>(body: () => T) => T) =>
  db.transaction((body: () => unknown) => body()).immediate as <T>(body: () => T) => T;

/** A batch's `BEGIN IMMEDIATE`; refused (the sidecar held past its busy timeout, the disk), judged as the disk's. */
export function beginBatch(db: Database, verdicts: DiskVerdicts): void {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    throw verdicts.judged(error);
  }
}
