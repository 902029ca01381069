import { randomBytes, randomUUID } from 'node:crypto';

/** Random bytes drawn 4 KiB at a time: asking the system for 16 bytes per id cost a write more than its id. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

/** `bytes` random bytes, URL-safe: ids are opaque and not guessable, though never authorization. */
function randomText(bytes: number): string {
  if (used + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const text = pool.toString('base64url', used, used + bytes);
  used += bytes;
  return text;
}

export const newHandoffId = (): string => `ho_${randomText(16)}`;
export const newTaskId = (): string => `tk_${randomText(16)}`;
export const newCorrelationId = (): string => randomUUID();
export const newInputKey = (): string => `in_${randomText(9)}`;
