// Living beside Litestream (litestream.io), which replicates the sidecar by
// reading its write-ahead log and checkpoints it itself: at 1,000 pages by
// default, forcing it at 10,000. A checkpoint the room makes as Litestream
// switches its locks can cost the replica a fresh snapshot, so in a sidecar
// Litestream replicates the room leaves checkpoints to it, and makes one
// itself only past 40,000 pages: a bound that keeps the log from growing
// without end once Litestream has stopped.
import { readFileSync } from 'node:fs';
import type { Database } from 'better-sqlite3';

/** Pages of write-ahead log past which the room checkpoints a sidecar Litestream replicates. */
export const LITESTREAM_CHECKPOINT_PAGES = 40_000;

/** The tables Litestream makes in a database it replicates: its position (`_litestream_seq`) and its lock. */
const LITESTREAM_TABLES = ['_litestream_seq', '_litestream_lock'] as const;

/** Whether this process was started by Litestream (`litestream replicate -exec`), as Linux tells. */
function startedByLitestream(): boolean {
  try {
    return readFileSync(`/proc/${process.ppid}/comm`, 'utf8').trim() === 'litestream';
  } catch {
    return false;
  }
}

/**
 * Whether Litestream replicates this sidecar: it runs the room
 * (`litestream replicate -exec`), whose first start comes before Litestream
 * has made its tables, or it has made them (`_litestream_seq`, where it
 * keeps its position).
 */
const litestreamReplicates = (db: Database): boolean =>
  startedByLitestream() ||
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(LITESTREAM_TABLES[0]) !== undefined;

/** Leaves checkpoints to Litestream when it replicates the sidecar; whether it does. */
export function leaveCheckpointsToLitestream(db: Database): boolean {
  if (!litestreamReplicates(db)) return false;
  db.pragma(`wal_autocheckpoint = ${LITESTREAM_CHECKPOINT_PAGES}`);
  return true;
}

/** Drops Litestream's tables: a replica's bookkeeping stays with the replica, and a Litestream that replicates the room again makes its own. */
export function forgetLitestream(db: Database): void {
  for (const table of LITESTREAM_TABLES) db.exec(`DROP TABLE IF EXISTS ${table}`);
}
