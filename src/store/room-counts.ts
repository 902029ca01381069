// What the sidecar holds, counted, for `ce status`: handoffs by status,
// sessions that still let someone in, open proposals, the newest revision
// and the newest event. Read-only; run rarely, so not prepared ahead.
import type { Database } from 'better-sqlite3';

export interface RoomCounts {
  handoffs: Record<string, number>;
  live_sessions: number;
  open_proposals: number;
  revision: { number: number; at: number } | null;
  last_event_at: number | null;
}

export function roomCounts(db: Database, now: number): RoomCounts {
  const handoffs = db.prepare('SELECT status, count(*) AS n FROM handoffs GROUP BY status ORDER BY status').all() as {
    status: string;
    n: number;
  }[];
  const count = (sql: string, ...params: unknown[]) => (db.prepare(sql).get(...params) as { n: number }).n;
  return {
    handoffs: Object.fromEntries(handoffs.map(({ status, n }) => [status, n])),
    live_sessions: count(
      'SELECT count(*) AS n FROM sessions WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
      now,
    ),
    open_proposals: count("SELECT count(*) AS n FROM proposals WHERE status = 'open'"),
    revision:
      (db.prepare('SELECT number, at FROM revisions ORDER BY number DESC LIMIT 1').get() as
        { number: number; at: number } | undefined) ?? null,
    last_event_at: (db.prepare('SELECT max(at) AS at FROM events').get() as { at: number | null }).at,
  };
}
