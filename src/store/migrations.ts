import type { Database } from 'better-sqlite3';
import { checksWithoutLists } from './check-lists.js';
import { FIRST_SCHEMA } from './first-schema.js';

/**
 * Numbered schema migrations. Each runs once, in order, inside one
 * transaction with the row that records it; never edit a released one,
 * add the next number instead.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** What SQL alone cannot do, run after `sql` in the same transaction. */
  run?: (db: Database) => void;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'participants, handoffs, tasks, inputs, event ring',
    sql: FIRST_SCHEMA,
  },
  {
    version: 2,
    name: 'sessions, participant removal, revisions, proposals, history',
    sql: `
      ALTER TABLE participants ADD COLUMN removed_at INTEGER;

      -- Only a hash of each token is kept; the token is shown once.
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        participant TEXT NOT NULL REFERENCES participants (name),
        capabilities_json TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX sessions_participant ON sessions (participant, created_at);

      CREATE TABLE revisions (
        number INTEGER PRIMARY KEY,
        hash TEXT NOT NULL,
        size INTEGER NOT NULL,
        content TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('initial','proposal','external')),
        author TEXT,
        approver TEXT,
        proposal_id TEXT,
        at INTEGER NOT NULL
      );

      CREATE TABLE proposals (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('open','accepted','rejected','withdrawn')),
        author TEXT NOT NULL,
        base_revision INTEGER NOT NULL REFERENCES revisions (number),
        summary TEXT,
        content TEXT NOT NULL,
        diff TEXT,
        created_at INTEGER NOT NULL,
        decided_by TEXT,
        decided_at INTEGER,
        note TEXT,
        revision INTEGER REFERENCES revisions (number)
      );
      CREATE INDEX proposals_newest ON proposals (created_at DESC, id DESC);

      -- The room's history: revisions and decisions, kept for the life of the
      -- room (unlike the event ring).
      CREATE TABLE history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        actor TEXT,
        revision INTEGER REFERENCES revisions (number),
        proposal_id TEXT,
        handoff_id TEXT,
        note TEXT
      );
    `,
  },
  {
    version: 3,
    name: 'pending writes of the artifact',
    sql: `
      -- An accepted proposal's bytes on their way to the file. The row is
      -- committed before the file is touched and removed in the transaction
      -- that records the revision; after a crash the bytes on disk say which
      -- way it went. One at a time: only the writer writes the file.
      CREATE TABLE pending_writes (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        proposal_id TEXT NOT NULL REFERENCES proposals (id),
        approver TEXT NOT NULL,
        note TEXT,
        base_revision INTEGER NOT NULL REFERENCES revisions (number),
        hash TEXT NOT NULL,
        size INTEGER NOT NULL,
        at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'progress reported on a handoff',
    sql: `
      -- The assignee's latest report of how far along it is (JSON: message,
      -- progress, total, by, at); its message is also the task's status message.
      ALTER TABLE handoffs ADD COLUMN progress_json TEXT;
    `,
  },
  {
    version: 5,
    name: 'room settings',
    sql: `
      -- How the room process serves the room (schemas/domain/room-settings.json),
      -- one row a setting; a setting with no row has its default.
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value_json TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        updated_by TEXT
      );
    `,
  },
  {
    version: 6,
    name: 'a file to write from a revision',
    sql: `
      -- Set by ce restore in the sidecar it puts back, before the file is
      -- touched: the file is to be written from this revision the next time
      -- the room is opened for writing, if a crash came between the two, and
      -- is not an outside edit. Removed with the artifact.restored event.
      CREATE TABLE file_rewrite (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        revision INTEGER NOT NULL REFERENCES revisions (number),
        reason TEXT NOT NULL,
        at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: 'proposals merged onto a later revision',
    sql: `
      -- A proposal whose base is older than the current revision is merged
      -- onto it (three-way, by lines): the pending write carries the merged
      -- text, and the revision the base the proposal was made against.
      ALTER TABLE pending_writes ADD COLUMN content TEXT;
      ALTER TABLE pending_writes ADD COLUMN merged_base INTEGER REFERENCES revisions (number);
      ALTER TABLE revisions ADD COLUMN merged_base INTEGER REFERENCES revisions (number);
    `,
  },
  {
    version: 8,
    name: 'whether an open proposal merges onto the current revision',
    sql: `
      -- JSON (schemas/domain/mergeable.json), worked out when the proposal is
      -- made and whenever a new revision lands; NULL once it is decided.
      ALTER TABLE proposals ADD COLUMN mergeable_json TEXT;
    `,
  },
  {
    version: 9,
    name: 'handoffs counted by status',
    sql: `
      -- Kept by these triggers in every change's transaction: a status or a metrics
      -- scrape reads a few rows, not every handoff the room ever had.
      CREATE TABLE handoff_counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL);
      INSERT INTO handoff_counts (status, n) SELECT status, count(*) FROM handoffs GROUP BY status;
      CREATE TRIGGER handoff_counts_insert AFTER INSERT ON handoffs BEGIN
        INSERT INTO handoff_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER handoff_counts_update AFTER UPDATE OF status ON handoffs WHEN OLD.status IS NOT NEW.status BEGIN
        UPDATE handoff_counts SET n = n - 1 WHERE status = OLD.status;
        INSERT INTO handoff_counts (status, n) VALUES (NEW.status, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER handoff_counts_delete AFTER DELETE ON handoffs BEGIN
        UPDATE handoff_counts SET n = n - 1 WHERE status = OLD.status;
      END;
    `,
  },
  {
    version: 10,
    name: 'newest-first indexes kept in ascending order',
    sql: `
      -- SQLite reads an index backwards for ORDER BY created_at DESC, id DESC
      -- as well as forwards. Kept descending, each new row went in at the
      -- index's front, where a full leaf is split by rebalancing it with its
      -- neighbours: three leaves and their parent written, where a new row at
      -- the end fills the last leaf (half the log pages of a batch's handoffs_newest).
      DROP INDEX handoffs_newest;
      CREATE INDEX handoffs_newest ON handoffs (created_at, id);
      DROP INDEX proposals_newest;
      CREATE INDEX proposals_newest ON proposals (created_at, id);
    `,
  },
  {
    version: 11,
    name: 'handoffs counted by the writer',
    sql: `
      -- handoff_counts is kept by the room's writer from here on, written
      -- once a commit with what its changes moved (store/handoff-counts.ts).
      -- The triggers ran on every insert and update of a handoff, and cost a
      -- durable write about a tenth of its CPU. The counts are as they were.
      DROP TRIGGER handoff_counts_insert;
      DROP TRIGGER handoff_counts_update;
      DROP TRIGGER handoff_counts_delete;
    `,
  },
  {
    version: 12,
    name: 'CHECKs of allowed values as ORs, not IN lists',
    sql: '-- The tables of check-lists.ts: their definitions rewritten in place.',
    run: checksWithoutLists,
  },
  {
    version: 13,
    name: 'finished tasks indexed by when they fall due',
    sql: `
      -- The expiry sweep deletes a finished task's row one TTL after its last
      -- update. Found through tasks_status, every finished row was read at
      -- every sweep, once a minute: about 20 ms of a room's event loop for a
      -- day of 100,000 tasks. Only finished rows are in this index: a write
      -- adds one as a task finishes, and the sweep takes it out with its
      -- row. Its WHERE is the one the sweep's statements name
      -- (store/tasks-due.ts), as ORs, which SQLite tests without building
      -- a list at every row.
      CREATE INDEX tasks_finished_due ON tasks (last_updated_at + ttl_ms)
        WHERE status = 'completed' OR status = 'failed' OR status = 'cancelled';
    `,
  },
];
