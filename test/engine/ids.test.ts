// Handoff and task ids: the documented shape, the millisecond they were made
// first, in characters that sort as text in the order of their values (so
// that new rows sit together at the end of the sidecar's indexes), and 80
// random bits after it, so that ids made in the same millisecond differ.
import { expect, test } from 'vitest';
import { IN_ORDER, newHandoffId, newInputKey, newTaskId } from '../../src/engine/ids.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** An id's 16 bytes: each character back to base64url's with the same value. */
const bytesOf = (id: string): Buffer =>
  Buffer.from([...id.slice(3)].map((c) => BASE64URL[IN_ORDER.indexOf(c)]).join(''), 'base64url');
const madeAt = (id: string): number => bytesOf(id).readUIntBE(0, 6);

test('handoff and task ids are 16 URL-safe bytes that begin with the millisecond they were made', () => {
  const before = Date.now();
  const handoff = newHandoffId();
  const task = newTaskId();
  const after = Date.now();
  expect(handoff).toMatch(/^ho_[A-Za-z0-9_-]{22}$/);
  expect(task).toMatch(/^tk_[A-Za-z0-9_-]{22}$/);
  for (const id of [handoff, task]) {
    expect(madeAt(id)).toBeGreaterThanOrEqual(before);
    expect(madeAt(id)).toBeLessThanOrEqual(after);
  }
});

test('ids made in the same millisecond differ in their random part', () => {
  const ids = Array.from({ length: 20_000 }, () => newTaskId());
  const tails = new Set(ids.map((id) => bytesOf(id).subarray(6).toString('hex')));
  expect(tails.size).toBe(ids.length);
  // Many of them share their millisecond: the time alone would not tell them apart.
  expect(new Set(ids.map(madeAt)).size).toBeLessThan(ids.length);
});

test('an id made in a later millisecond sorts after, as text', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 70; i++) {
    // each in a later millisecond than the last: the time's last character takes each of its 64 values, and carries
    ids.push(newTaskId());
    const made = madeAt(ids.at(-1)!);
    while (Date.now() === made) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  expect([...ids].sort()).toEqual(ids);
  // The ids span more than 64 ms, so the time's last character went round and carried at least once. (Counting
  // its distinct values failed on a loaded machine, where the waits skip milliseconds: steps of 2 give only 32.)
  expect(madeAt(ids.at(-1)!) - madeAt(ids[0]!)).toBeGreaterThanOrEqual(64);
});

test('input keys stay random: nine URL-safe bytes', () => {
  const keys = Array.from({ length: 1000 }, () => newInputKey());
  for (const key of keys) expect(key).toMatch(/^in_[A-Za-z0-9_-]{12}$/);
  expect(new Set(keys).size).toBe(keys.length);
});
