// The sessions a room has recently authenticated, keyed by token hash, so a
// request does not read its session row and participant again. Only the
// writer caches: it alone changes sessions and participants, and forgets
// what a change may have made untrue (a revoked session, a removed
// participant) in the same call. Expiry is checked on every use.
import type { Caller } from '../../generated/types.js';
import type { Room } from './room.js';

export interface CachedSession {
  caller: Caller & { session_id: string };
  expiresAt: number | null;
}

/** Enough for every session of a busy room; the oldest is dropped beyond it. */
export const SESSION_CACHE_SIZE = 1024;

const caches = new WeakMap<Room, Map<string, CachedSession>>();
const generations = new WeakMap<Room, number>();

/**
 * How many times the room's sessions changed (a session revoked, a
 * participant removed): a request that authenticated before its body came
 * in, and finds it changed since, authenticates again before it acts.
 */
export const sessionsGeneration = (room: Room): number => generations.get(room) ?? 0;

const sessionsChanged = (room: Room): void => void generations.set(room, sessionsGeneration(room) + 1);

export function cachedSession(room: Room, tokenHash: string): CachedSession | undefined {
  return caches.get(room)?.get(tokenHash);
}

export function cacheSession(room: Room, tokenHash: string, session: CachedSession): void {
  if (!room.sidecar.writable) return; // another process may change the rows under a reader
  let cache = caches.get(room);
  if (!cache) caches.set(room, (cache = new Map()));
  if (cache.size >= SESSION_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(tokenHash, session);
}

export function forgetSession(room: Room, tokenHash: string): void {
  sessionsChanged(room);
  caches.get(room)?.delete(tokenHash);
}

/** After a revocation or a participant's removal: every session is read again from the sidecar. */
export function forgetSessions(room: Room): void {
  sessionsChanged(room);
  caches.get(room)?.clear();
}
