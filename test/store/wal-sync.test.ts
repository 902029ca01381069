// The log's fsyncs (store/wal-sync.ts): on a fast disk they run on the
// event loop; once those take too long on average, the next ones run on the
// thread pool, and then one tries the loop again. On the pool several run at
// once, each on a descriptor of its own; those who ask while every
// descriptor is busy share the next one; a failed fsync refuses exactly
// those it covered; syncNow has a descriptor of its own; and every
// descriptor closes once no fsync runs.
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import {
  CONCURRENT_SYNCS,
  INLINE_SYNC_MS,
  POOL_SYNCS_AFTER_SLOW,
  WalSync,
  type Fdatasync,
  type FdatasyncHere,
} from '../../src/store/wal-sync.js';

/** fdatasyncs on the thread pool that end when the test says. */
let running: { fd: number; done: (error: NodeJS.ErrnoException | null) => void }[];
const held: Fdatasync = (fd, done) => void running.push({ fd, done });

/** fdatasyncs on the event loop: each takes `hereMs`, or fails with `failHere`. */
let hereMs: number;
let failHere: NodeJS.ErrnoException | null;
let syncedHere: number;
const timedHere: FdatasyncHere = () => {
  if (failHere) throw failHere;
  syncedHere += 1;
  return hereMs;
};
const eio = () => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });

/** A WalSync on a disk whose fsyncs take 20 ms: its first one, on the event loop, sends the next ones to the pool. */
function onSlowDisk(): WalSync {
  hereMs = 20;
  const wal = WalSync.open(db, held, timedHere)!;
  wal.syncNow();
  return wal;
}

let dir: string;
let db: Database.Database;
beforeEach(() => {
  running = [];
  hereMs = 0.3;
  failHere = null;
  syncedHere = 0;
  dir = mkdtempSync(path.join(tmpdir(), 'ce-wal-sync-'));
  db = new Database(path.join(dir, 'sidecar.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x)'); // the log exists from the first write
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const settled = (promise: Promise<void>) => {
  const seen = { state: 'waiting' as 'waiting' | 'synced' | 'failed' };
  promise.then(
    () => (seen.state = 'synced'),
    () => (seen.state = 'failed'),
  );
  return seen;
};
const turn = () => new Promise((resolve) => setImmediate(resolve));
/** This process's descriptors of the sidecar's log (Linux's /proc). */
const logDescriptors = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).endsWith('sidecar.db-wal');
    } catch {
      return false; // the descriptor readdir itself used, closed since
    }
  }).length;

test('on a fast disk the fsync runs on the event loop: synced before the loop turns, none on the pool', async () => {
  const wal = WalSync.open(db, held, timedHere)!;
  expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL: the room fsyncs the log
  const asked = Array.from({ length: 5 }, () => settled(wal.synced()));
  expect(syncedHere).toBe(5);
  expect(running).toHaveLength(0);
  await Promise.resolve(); // no turn of the loop: only the promise's own callbacks
  expect(asked.every(({ state }) => state === 'synced')).toBe(true);
  wal.close();
});

test('once the fsyncs on the loop take too long on average, the next ones run on the pool, then one tries the loop again', async () => {
  const wal = WalSync.open(db, held, timedHere)!;
  for (let i = 0; i < 8; i++) await wal.synced();
  hereMs = INLINE_SYNC_MS * 2; // slower, but one alone does not outweigh the fast ones before it
  await wal.synced();
  expect(syncedHere).toBe(9);
  hereMs = 20; // the disk became slow
  await wal.synced();
  expect(syncedHere).toBe(10);
  const pooled = Array.from({ length: POOL_SYNCS_AFTER_SLOW }, () => settled(wal.synced()));
  expect(syncedHere).toBe(10);
  expect(running).toHaveLength(CONCURRENT_SYNCS);
  for (let fsync = running.shift(); fsync; fsync = running.shift()) {
    fsync.done(null);
    await turn();
  }
  expect(pooled.every(({ state }) => state === 'synced')).toBe(true);
  hereMs = 0.3;
  await wal.synced(); // after them, the loop again
  expect(syncedHere).toBe(11);
  expect(running).toHaveLength(0);
  wal.close();
});

test('a failed fsync on the event loop refuses those it covered, and the next one may succeed', async () => {
  const wal = WalSync.open(db, held, timedHere)!;
  failHere = eio();
  await expect(wal.synced()).rejects.toMatchObject({ code: 'EIO' });
  expect(() => wal.syncNow()).toThrow(/EIO/);
  failHere = null;
  await expect(wal.synced()).resolves.toBeUndefined();
  wal.close();
});

test('fsyncs run at once, each on a descriptor of its own; who asks while all are busy shares the next', async () => {
  const wal = onSlowDisk();
  expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL: the room fsyncs the log
  const first = Array.from({ length: CONCURRENT_SYNCS }, () => settled(wal.synced()));
  expect(running).toHaveLength(CONCURRENT_SYNCS);
  expect(new Set(running.map(({ fd }) => fd)).size).toBe(CONCURRENT_SYNCS);
  const later = [settled(wal.synced()), settled(wal.synced())];
  expect(running).toHaveLength(CONCURRENT_SYNCS); // no descriptor free: they wait

  const ended = running.splice(1, 1)[0]!; // not the oldest: fsyncs may end in any order
  ended.done(null);
  await turn();
  expect(first.map(({ state }) => state)).toEqual(first.map((_, i) => (i === 1 ? 'synced' : 'waiting')));
  expect(later.map(({ state }) => state)).toEqual(['waiting', 'waiting']);
  expect(running).toHaveLength(CONCURRENT_SYNCS);
  expect(running.at(-1)!.fd).toBe(ended.fd); // both later ones, on the descriptor just freed

  running.pop()!.done(null);
  await turn();
  expect(later.map(({ state }) => state)).toEqual(['synced', 'synced']);
  for (const fsync of running.splice(0)) fsync.done(null);
  await turn();
  expect(first.every(({ state }) => state === 'synced')).toBe(true);
  wal.close();
});

test('a failed fsync refuses those it covered, and no one else', async () => {
  const wal = onSlowDisk();
  const a = settled(wal.synced());
  const b = settled(wal.synced());
  running[0]!.done(eio());
  running[1]!.done(null);
  await turn();
  expect([a.state, b.state]).toEqual(['failed', 'synced']);
  wal.close();
});

test('closing waits for the fsyncs that run, then closes every descriptor it opened; syncNow runs beside them', async () => {
  const before = logDescriptors();
  const wal = onSlowDisk();
  expect(logDescriptors()).toBe(before + CONCURRENT_SYNCS + 1); // one per fsync at once, and syncNow's
  const pending = settled(wal.synced());
  wal.syncNow(); // beside the fsync that runs, on a descriptor of its own
  wal.close();
  expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL: SQLite's own fsyncs again
  expect(logDescriptors()).toBe(before + CONCURRENT_SYNCS + 1); // its fsync still runs
  running[0]!.done(null);
  await turn();
  expect(pending.state).toBe('synced');
  expect(logDescriptors()).toBe(before);
});

test('the real fdatasync: what was asked for is on disk, and a database with no log of its own gets no WalSync', async () => {
  const wal = WalSync.open(db)!;
  db.prepare('INSERT INTO t VALUES (1)').run();
  await Promise.all([wal.synced(), wal.synced(), wal.synced(), wal.synced()]);
  wal.close();
  expect(WalSync.open(new Database(':memory:'))).toBeNull();
});
