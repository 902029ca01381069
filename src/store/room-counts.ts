// What the sidecar holds, counted, for `ce status` and a metrics scrape:
// handoffs by status (kept counted by the writer: store/handoff-counts.ts),
// sessions that still let someone in, open proposals, the newest revision,
// the newest event and the event ring. Read-only; run rarely (a status, a
// metrics scrape), so not prepared ahead.
import type { Database } from 'better-sqlite3';

export interface RoomCounts {
  handoffs: Record<string, number>;
  live_sessions: number;
  open_proposals: number;
  /** Open proposals that no longer merge onto the current revision. */
  conflicted_proposals: number;
  revision: { number: number; at: number } | null;
  last_event_at: number | null;
  /** Events in the ring (the newest EVENT_RING_SIZE are kept, and up to EVENT_RING_SLACK more) and the newest one's id, which counts every event ever. */
  events: { in_ring: number; last_id: number };
}

export function roomCounts(db: Database, now: number): RoomCounts {
  const handoffs = db.prepare('SELECT status, n FROM handoff_counts WHERE n > 0 ORDER BY status').all() as {
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
    conflicted_proposals: count(
      "SELECT count(*) AS n FROM proposals WHERE status = 'open' AND mergeable_json ->> '$.status' = 'conflicts'",
    ),
    revision:
      (db.prepare('SELECT number, at FROM revisions ORDER BY number DESC LIMIT 1').get() as
        { number: number; at: number } | undefined) ?? null,
    last_event_at: (db.prepare('SELECT max(at) AS at FROM events').get() as { at: number | null }).at,
    events: db.prepare('SELECT count(*) AS in_ring, coalesce(max(id), 0) AS last_id FROM events').get() as {
      in_ring: number;
      last_id: number;
    },
  };
}
