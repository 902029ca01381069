// Handoff and task ids: the documented shape, the millisecond they were made
// first (so that new rows sit together in the sidecar's indexes), and 80
// random bits after it, so that ids made in the same millisecond differ.
import { expect, test } from 'vitest';
import { newHandoffId, newInputKey, newTaskId } from '../../src/engine/ids.js';

const madeAt = (id: string): number => Buffer.from(id.slice(3), 'base64url').readUIntBE(0, 6);

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
  const tails = new Set(ids.map((id) => Buffer.from(id.slice(3), 'base64url').subarray(6).toString('hex')));
  expect(tails.size).toBe(ids.length);
  // Many of them share their millisecond: the time alone would not tell them apart.
  expect(new Set(ids.map(madeAt)).size).toBeLessThan(ids.length);
});

test('input keys stay random: nine URL-safe bytes', () => {
  const keys = Array.from({ length: 1000 }, () => newInputKey());
  for (const key of keys) expect(key).toMatch(/^in_[A-Za-z0-9_-]{12}$/);
  expect(new Set(keys).size).toBe(keys.length);
});
