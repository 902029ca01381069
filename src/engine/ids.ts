import { randomBytes, randomUUID } from 'node:crypto';

/** Random bytes drawn 4 KiB at a time: asking the system for 16 bytes per id cost a write more than its id. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

/** Where the next `bytes` of the pool begin; the pool is drawn anew when they are not left. */
function take(bytes: number): number {
  if (used + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  used += bytes;
  return used - bytes;
}

/** `bytes` random bytes, URL-safe: ids are opaque and not guessable, though never authorization. */
function randomText(bytes: number): string {
  const at = take(bytes);
  return pool.toString('base64url', at, at + bytes);
}

/**
 * 16 bytes, URL-safe: the time it was made (milliseconds, 6 bytes), then 10
 * random ones. Handoffs and tasks are what a room makes most, and their ids
 * key the sidecar's indexes: with the time first, the rows made one after
 * another land side by side, where random ids put each on a page of its own
 * (a batch of six writes: 22 pages of log, against 30 with random ids;
 * BENCHMARKS.md). Written in base64url's 64 characters, but each standing
 * for the value its place in ASCII order gives it (IN_ORDER), so that a
 * later id also sorts after as text, as SQLite compares them. In base64url
 * 'A' stands for 0 and '-' for 62, but as text '-' sorts first: the
 * millisecond's last character went up and down, and a new id often landed
 * before older ones in the last pages of each index, which then split in
 * the middle.
 * Eighty random bits keep an id not guessable, though it is never
 * authorization; clients read ids as opaque.
 */
function timedText(): string {
  const id = Buffer.allocUnsafe(16);
  id.writeUIntBE(Date.now(), 0, 6);
  const at = take(10);
  pool.copy(id, 6, at, at + 10);
  const text = id.toString('base64url');
  let sorted = '';
  for (let i = 0; i < text.length; i++) sorted += IN_ORDER_OF[text.charCodeAt(i)];
  return sorted;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** base64url's characters in ASCII order: the n-th stands for the value n. */
export const IN_ORDER = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
/** By a base64url character's code, the character of IN_ORDER with the same value. */
const IN_ORDER_OF: string[] = [];
for (let i = 0; i < 64; i++) IN_ORDER_OF[BASE64URL.charCodeAt(i)] = IN_ORDER[i]!;

export const newHandoffId = (): string => `ho_${timedText()}`;
export const newTaskId = (): string => `tk_${timedText()}`;
export const newCorrelationId = (): string => randomUUID();
export const newInputKey = (): string => `in_${randomText(9)}`;
