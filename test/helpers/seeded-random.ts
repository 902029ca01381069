// Reproducible randomness for tests that draw their moves: one 32-bit seed,
// printed when a test fails and settable from the environment, gives the
// same draws again.

/** A number in [0, 1), like Math.random. */
export type Random = () => number;

/** mulberry32: small, fast and good enough to spread test choices. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * A seed for one independent stream (a round, a participant), so that what
 * one stream draws never shifts another's draws.
 */
export function deriveSeed(seed: number, ...path: number[]): number {
  let h = seed >>> 0;
  for (const part of path) {
    h = Math.imul(h ^ (part >>> 0), 0x9e3779b1) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
    h = (h ^ (h >>> 13)) >>> 0;
  }
  return h;
}

/** An integer from min to max, both included. */
export const between = (random: Random, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));

export const pick = <T>(random: Random, items: readonly T[]): T => {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(random() * items.length)]!;
};

/**
 * The seed named by an environment variable (a decimal 32-bit integer), or
 * a fresh one. A malformed value is an error, not a silent fresh seed.
 */
export function seedFromEnv(name: string): number {
  const text = process.env[name];
  if (text === undefined || text === '') return Math.floor(Math.random() * 2 ** 32);
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(`${name} must be an integer from 0 to ${2 ** 32 - 1}, not ${JSON.stringify(text)}`);
  }
  return seed;
}
