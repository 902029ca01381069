// How many files this process may open, which bounds the streams a room can
// hold: each one is a socket. Read from Linux's /proc/self/limits (the soft
// limit, what `ulimit -n` says); elsewhere it is not known, and streams are
// bounded by --max-streams alone. A room asked for more streams than its
// descriptors allow failed at the limit with EMFILE wherever a file was
// next opened (a module loaded on first use: a 500 and a stack trace);
// bounded here, the stream past it is refused with a 503 that says why.
import { readFileSync } from 'node:fs';

/**
 * Descriptors no stream may take: node's own, the sidecar, its log and
 * their syncs, the listening socket, modules loaded on first use, and the
 * requests that come and go (a room at rest holds about 30).
 */
export const KEPT_FROM_STREAMS = 128;

/** The soft limit on this process's open files; null when unlimited or not known. */
export function openFileLimit(): number | null {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
  const soft = /^Max open files\s+(\d+|unlimited)\s/m.exec(limits)?.[1];
  return soft === undefined || soft === 'unlimited' ? null : Number(soft);
}

/** The streams a room holds at most: `asked`, or fewer, so that KEPT_FROM_STREAMS descriptors stay free of them. */
export const streamsWithin = (asked: number, openFiles: number | null): number =>
  openFiles === null ? asked : Math.min(asked, Math.max(1, openFiles - KEPT_FROM_STREAMS));
