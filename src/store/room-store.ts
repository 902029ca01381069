import type { Database, Statement } from 'better-sqlite3';
import type { EventRow, HandoffRow, InputRow, ParticipantRow, TaskRow } from './rows.js';
import { CommittedTasks } from './committed-tasks.js';
import { HandoffCounts } from './handoff-counts.js';
import {
  EVENT_INSERTED,
  HANDOFF_COLUMNS,
  HANDOFF_UPDATED,
  insertSql,
  rowOf,
  selectByIdSql,
  TASK_COLUMNS,
  TASK_UPDATED,
  updateByIdSql,
  updatedValues,
  valuesOf,
} from './row-columns.js';
import { FinishedTasksDue } from './tasks-due.js';

const ACTIVE = `('working', 'input_required')`;

function prepareStatements(db: Database) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    insertParticipant: p(
      `INSERT INTO participants (name, created_at, removed_at) VALUES (@name, @created_at, NULL)
       ON CONFLICT (name) DO UPDATE SET created_at = excluded.created_at, removed_at = NULL`,
    ),
    removeParticipant: p('UPDATE participants SET removed_at = ? WHERE name = ? AND removed_at IS NULL'),
    getParticipant: p('SELECT name, created_at, removed_at FROM participants WHERE name = ?'),
    listParticipants: p('SELECT name, created_at, removed_at FROM participants ORDER BY name'),

    listSettings: p('SELECT key, value_json FROM settings ORDER BY key'),
    putSetting: p(`INSERT INTO settings (key, value_json, updated_at, updated_by)
        VALUES (@key, @value_json, @updated_at, @updated_by)
        ON CONFLICT (key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at,
          updated_by = excluded.updated_by`),

    insertHandoff: p(insertSql('handoffs', HANDOFF_COLUMNS)),
    updateHandoff: p(updateByIdSql('handoffs', HANDOFF_UPDATED)),
    getHandoff: p(selectByIdSql('handoffs', HANDOFF_COLUMNS)).raw(),
    getHandoffByTask: p('SELECT * FROM handoffs WHERE task_id = ?'),
    countHandoffs: p(
      'INSERT INTO handoff_counts (status, n) VALUES (?, ?) ON CONFLICT (status) DO UPDATE SET n = n + excluded.n',
    ),
    getHandoffByIdempotencyKey: p('SELECT * FROM handoffs WHERE owner = ? AND idempotency_key = ?'),
    listHandoffs: p(`SELECT * FROM handoffs
        WHERE (@status IS NULL OR status = @status)
          AND (@before_at IS NULL OR created_at < @before_at OR (created_at = @before_at AND id < @before_id))
        ORDER BY created_at DESC, id DESC LIMIT @limit`),

    insertTask: p(insertSql('tasks', TASK_COLUMNS)),
    updateTask: p(updateByIdSql('tasks', TASK_UPDATED)),
    getTask: p(selectByIdSql('tasks', TASK_COLUMNS)).raw(),
    // Each status by its own search of the index: as an IN list, SQLite builds a b-tree of the list first (twice the time).
    countActiveTasks: p(`SELECT (SELECT count(*) FROM tasks WHERE status = 'working')
        + (SELECT count(*) FROM tasks WHERE status = 'input_required') AS n`),
    activeTasksByOwner: p(`SELECT owner, count(*) AS active FROM tasks WHERE status IN ${ACTIVE}
        GROUP BY owner ORDER BY active DESC, owner`),
    listExpiredActiveTasks: p(
      `SELECT * FROM tasks WHERE status IN ${ACTIVE} AND created_at + ttl_ms <= ? ORDER BY created_at`,
    ),

    insertInput: p(`INSERT INTO handoff_inputs (task_id, key, handoff_id, request_json, requested_by, requested_at,
          response_json, answered_by, answered_at)
        VALUES (@task_id, @key, @handoff_id, @request_json, @requested_by, @requested_at, NULL, NULL, NULL)`),
    getInput: p('SELECT * FROM handoff_inputs WHERE task_id = ? AND key = ?'),
    answerInput: p(`UPDATE handoff_inputs SET response_json = @response_json, answered_by = @answered_by,
          answered_at = @answered_at WHERE task_id = @task_id AND key = @key AND response_json IS NULL`),
    // In the order they were asked (rowid breaks a tie of the same millisecond).
    listInputsForHandoff: p('SELECT * FROM handoff_inputs WHERE handoff_id = ? ORDER BY requested_at, rowid'),
    listOutstandingInputs: p(
      'SELECT * FROM handoff_inputs WHERE task_id = ? AND response_json IS NULL ORDER BY requested_at, rowid',
    ),

    insertEvent: p(insertSql('events', EVENT_INSERTED)),
    // The events up to an id, by the rowid range: each one's handoff comes back.
    deleteEventsThrough: p('DELETE FROM events WHERE id <= ? RETURNING id, handoff_id'),
    markHandoffEventsPruned: p(
      'UPDATE handoffs SET events_pruned_through = max(events_pruned_through, @newest) WHERE id = @handoff_id',
    ),
    listHandoffEvents: p('SELECT * FROM events WHERE handoff_id = ? AND id > ? ORDER BY id LIMIT ?'),
    countEvents: p('SELECT count(*) AS n, min(id) AS oldest, max(id) AS newest FROM events'),
    // Each by its own lookup in the primary key (min and max together in one query would read every row).
    eventBounds: p('SELECT (SELECT min(id) FROM events) AS oldest, (SELECT max(id) FROM events) AS newest'),
  };
}

/**
 * Every statement the engine runs, prepared once when the room opens. No
 * rules here: the engine decides, the store reads and writes rows.
 */
export class RoomStore {
  private readonly s: ReturnType<typeof prepareStatements>;
  private readonly finishedDue: FinishedTasksDue;
  /** The writer's task rows as committed (committed-tasks.ts); none in a room open for reading (another process writes). */
  private readonly committedTasks: CommittedTasks | null;
  /** What the handoffs written since the last writeHandoffCounts moved between statuses (handoff-counts.ts). */
  readonly handoffCounts: HandoffCounts;

  constructor(
    readonly db: Database,
    { writer = false }: { writer?: boolean } = {},
  ) {
    this.s = prepareStatements(db);
    this.committedTasks = writer ? new CommittedTasks() : null;
    this.handoffCounts = new HandoffCounts(db);
    this.finishedDue = new FinishedTasksDue(db);
  }

  /** Adds a participant, or brings back a removed one under the same name. */
  insertParticipant(row: { name: string; created_at: number }): void {
    this.s.insertParticipant.run(row);
  }
  removeParticipant(name: string, at: number): boolean {
    return this.s.removeParticipant.run(at, name).changes === 1;
  }
  getParticipant(name: string): ParticipantRow | undefined {
    return this.s.getParticipant.get(name) as ParticipantRow | undefined;
  }
  listParticipants(): ParticipantRow[] {
    return this.s.listParticipants.all() as ParticipantRow[];
  }

  /** Each setting that has a row, its value as JSON text. */
  listSettings(): { key: string; value_json: string }[] {
    return this.s.listSettings.all() as { key: string; value_json: string }[];
  }

  putSetting(row: { key: string; value_json: string; updated_at: number; updated_by: string | null }): void {
    this.s.putSetting.run(row);
  }

  insertHandoff(row: HandoffRow): void {
    this.s.insertHandoff.run(valuesOf(row, HANDOFF_COLUMNS));
    this.handoffCounts.move(null, row.status);
  }
  /** Writes `row` over the handoff, which was `was` (as read in this transaction). */
  updateHandoff(row: HandoffRow, was: Readonly<HandoffRow>): void {
    this.s.updateHandoff.run(updatedValues(row, HANDOFF_UPDATED));
    this.handoffCounts.move(was.status, row.status);
  }
  /** handoff_counts made to say what the handoffs written since the last call moved: run last in their transaction. */
  writeHandoffCounts(): void {
    for (const [status, n] of this.handoffCounts.take()) this.s.countHandoffs.run(status, n);
  }
  getHandoff(id: string): HandoffRow | undefined {
    const values = this.s.getHandoff.get(id) as unknown[] | undefined;
    return values && rowOf<HandoffRow>(HANDOFF_COLUMNS, values);
  }
  getHandoffByTask(taskId: string): HandoffRow | undefined {
    return this.s.getHandoffByTask.get(taskId) as HandoffRow | undefined;
  }
  getHandoffByIdempotencyKey(owner: string, key: string): HandoffRow | undefined {
    return this.s.getHandoffByIdempotencyKey.get(owner, key) as HandoffRow | undefined;
  }
  listHandoffs(query: {
    status: string | null;
    before_at: number | null;
    before_id: string | null;
    limit: number;
  }): HandoffRow[] {
    return this.s.listHandoffs.all(query) as HandoffRow[];
  }

  insertTask(row: TaskRow): void {
    this.committedTasks?.forget(row.id);
    this.s.insertTask.run(valuesOf(row, TASK_COLUMNS));
  }
  updateTask(row: TaskRow): void {
    this.committedTasks?.forget(row.id);
    this.s.updateTask.run(updatedValues(row, TASK_UPDATED));
  }
  getTask(id: string): Readonly<TaskRow> | undefined {
    const cached = this.committedTasks?.get(id);
    if (cached) return cached;
    const values = this.s.getTask.get(id) as unknown[] | undefined;
    const row = values && rowOf<TaskRow>(TASK_COLUMNS, values);
    return row && this.committedTasks && !this.db.inTransaction ? this.committedTasks.keep(row) : row;
  }
  countActiveTasks(): number {
    return (this.s.countActiveTasks.get() as { n: number }).n;
  }
  /** Who owns the active tasks, most first: read when a create is refused at the room's limit, never on the way to a write. */
  activeTasksByOwner(): { owner: string; active: number }[] {
    return this.s.activeTasksByOwner.all() as { owner: string; active: number }[];
  }
  listExpiredActiveTasks(now: number): TaskRow[] {
    return this.s.listExpiredActiveTasks.all(now) as TaskRow[];
  }
  /** Whether a finished task's row is due for deletion at `now` (one TTL after its last update). */
  anyFinishedTaskDue(now: number): boolean {
    return this.finishedDue.any(now);
  }
  deleteFinishedTasksDue(now: number): number {
    this.committedTasks?.clear();
    return this.finishedDue.delete(now);
  }

  insertInput(row: Omit<InputRow, 'response_json' | 'answered_by' | 'answered_at'>): void {
    this.s.insertInput.run(row);
  }
  getInput(taskId: string, key: string): InputRow | undefined {
    return this.s.getInput.get(taskId, key) as InputRow | undefined;
  }
  /** Answers an outstanding request; false when it was already answered. */
  answerInput(row: {
    task_id: string;
    key: string;
    response_json: string;
    answered_by: string;
    answered_at: number;
  }): boolean {
    return this.s.answerInput.run(row).changes === 1;
  }
  listInputsForHandoff(handoffId: string): InputRow[] {
    return this.s.listInputsForHandoff.all(handoffId) as InputRow[];
  }
  listOutstandingInputs(taskId: string): InputRow[] {
    return this.s.listOutstandingInputs.all(taskId) as InputRow[];
  }

  insertEvent(row: Omit<EventRow, 'id'>): number {
    return Number(this.s.insertEvent.run(valuesOf(row, EVENT_INSERTED)).lastInsertRowid);
  }
  /**
   * Once the ring holds more than `keep + slack` events, drops all but the
   * newest `keep`, remembering per handoff the newest one dropped.
   */
  pruneEventRing(keep: number, slack: number): void {
    const { oldest, newest } = this.s.eventBounds.get() as { oldest: number | null; newest: number | null };
    // The span of the ids counts the events: AUTOINCREMENT leaves no holes (a rolled-back insert gives its id
    // back), and were there any, the ring would only be pruned sooner and keep fewer.
    if (oldest === null || newest! - oldest + 1 <= keep + slack) return;
    const dropped = this.s.deleteEventsThrough.all(newest! - keep) as { id: number; handoff_id: string | null }[];
    const prunedThrough = new Map<string, number>();
    for (const { id, handoff_id } of dropped) {
      if (handoff_id !== null) prunedThrough.set(handoff_id, Math.max(id, prunedThrough.get(handoff_id) ?? 0));
    }
    for (const [handoff_id, id] of prunedThrough) this.s.markHandoffEventsPruned.run({ handoff_id, newest: id });
  }
  listHandoffEvents(handoffId: string, after: number, limit: number): EventRow[] {
    return this.s.listHandoffEvents.all(handoffId, after, limit) as EventRow[];
  }
  eventStats(): { n: number; oldest: number | null; newest: number | null } {
    return this.s.countEvents.get() as { n: number; oldest: number | null; newest: number | null };
  }
}
