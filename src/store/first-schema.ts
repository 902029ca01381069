// The sidecar's first schema: migration 1's SQL (migrations.ts), released,
// never edited.
export const FIRST_SCHEMA = `
      CREATE TABLE participants (
        name TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE handoffs (
        id TEXT PRIMARY KEY,
        task_id TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('open','accepted','result_ready','approved','rejected','cancelled')),
        summary TEXT NOT NULL,
        constraints TEXT,
        owner TEXT NOT NULL,
        assignee TEXT,
        artifacts_json TEXT NOT NULL,
        idempotency_key TEXT,
        correlation_id TEXT NOT NULL,
        result_json TEXT,
        error_json TEXT,
        decision_json TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        accepted_at INTEGER,
        completed_at INTEGER,
        cancelled_at INTEGER,
        -- newest id of this handoff's events that left the ring (0: none)
        events_pruned_through INTEGER NOT NULL DEFAULT 0,
        UNIQUE (owner, idempotency_key)
      );
      CREATE INDEX handoffs_newest ON handoffs (created_at DESC, id DESC);

      -- No foreign key from handoffs: a terminal task row is deleted one TTL
      -- after its last update while the handoff keeps the result.
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        handoff_id TEXT NOT NULL REFERENCES handoffs (id),
        owner TEXT NOT NULL,
        assignee TEXT,
        operation TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('working','input_required','completed','failed','cancelled')),
        status_message TEXT,
        created_at INTEGER NOT NULL,
        last_updated_at INTEGER NOT NULL,
        ttl_ms INTEGER NOT NULL,
        poll_interval_ms INTEGER NOT NULL,
        correlation_id TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        result_json TEXT,
        error_json TEXT
      );
      CREATE INDEX tasks_status ON tasks (status, created_at);

      -- Input requests stay with the handoff after the task row is gone, so
      -- the assignee can always read the answers; keys are unique per task.
      CREATE TABLE handoff_inputs (
        task_id TEXT NOT NULL,
        key TEXT NOT NULL,
        handoff_id TEXT NOT NULL REFERENCES handoffs (id),
        request_json TEXT NOT NULL,
        requested_by TEXT NOT NULL,
        requested_at INTEGER NOT NULL,
        response_json TEXT,
        answered_by TEXT,
        answered_at INTEGER,
        PRIMARY KEY (task_id, key)
      );
      CREATE INDEX handoff_inputs_handoff ON handoff_inputs (handoff_id, requested_at);

      -- AUTOINCREMENT: ids strictly increase and are never reused after the
      -- ring drops old rows.
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        actor TEXT,
        handoff_id TEXT,
        task_id TEXT,
        payload_json TEXT NOT NULL
      );
      CREATE INDEX events_handoff ON events (handoff_id, id);
    `;
