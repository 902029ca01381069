// Migration 12 (store/check-lists.ts): the CHECKs of allowed values are ORs
// of equalities where migrations 1 and 2 wrote IN lists. They refuse the same
// values, a sidecar made before keeps every row, SQLite finds the file whole,
// another connection reads the new definitions, and a definition that is not
// the one replaced is left as it was.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { cancelTask, createHandoff, openRoom, proposeChange, type Room } from '../helpers/engine.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';
import { CHECK_LISTS, rewriteDefinitions } from '../../src/store/check-lists.js';
import { migrate } from '../../src/store/migrate.js';

const alice = caller('alice');

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom(['alice', 'bob']);
  room = t.room;
});
afterEach(() => t.close());

const TABLES = ['handoffs', 'tasks', 'revisions', 'proposals'];

/** Each table's CHECK of allowed values, as sqlite_schema has it. */
const checks = (db: Database.Database) =>
  Object.fromEntries(
    (
      db.prepare('SELECT name, sql FROM sqlite_schema WHERE type = ? ORDER BY name').all('table') as {
        name: string;
        sql: string;
      }[]
    )
      .filter(({ name }) => TABLES.includes(name))
      .map(({ name, sql }) => [name, /CHECK \((?:status|source)[^\n]*\)/.exec(sql)?.[0]]),
  );

/** As a sidecar made before migration 12 was: the IN lists of handoffs and tasks back, the migration not recorded. */
function asBeforeMigration12(db: Database.Database): void {
  const back = CHECK_LISTS.filter(({ table }) => table === 'handoffs' || table === 'tasks');
  rewriteDefinitions(
    db,
    back.map(({ table, was, now }) => ({ table, was: now, now: was })),
  );
  db.prepare('DELETE FROM schema_migrations WHERE version = 12').run();
}

test('a new sidecar checks its allowed values with ORs, and refuses the same values', () => {
  const db = room.sidecar.db;
  expect(checks(db)).toEqual({
    handoffs:
      "CHECK (status = 'open' OR status = 'accepted' OR status = 'result_ready' OR status = 'approved' OR status = 'rejected' OR status = 'cancelled')",
    proposals: "CHECK (status = 'open' OR status = 'accepted' OR status = 'rejected' OR status = 'withdrawn')",
    revisions: "CHECK (source = 'initial' OR source = 'proposal' OR source = 'external')",
    tasks:
      "CHECK (status = 'working' OR status = 'input_required' OR status = 'completed' OR status = 'failed' OR status = 'cancelled')",
  });
  const { handoff } = createHandoff(room, alice, { summary: 'Checked' });
  proposeChange(room, alice, { base_revision: 1, content: '# Changed\n', summary: 'A change' });
  for (const [table, column, id] of [
    ['handoffs', 'status', handoff.handoff_id],
    ['tasks', 'status', handoff.task_id],
    ['proposals', 'status', null],
    ['revisions', 'source', null],
  ] as const) {
    const where = id === null ? '' : ` WHERE id = '${id}'`;
    expect(() => db.prepare(`UPDATE ${table} SET ${column} = 'bogus'${where}`).run(), table).toThrow(
      /CHECK constraint failed/,
    );
    expect(() => db.prepare(`UPDATE ${table} SET ${column} = NULL${where}`).run(), table).toThrow(/NOT NULL/);
  }
  cancelTask(room, alice, { task_id: handoff.task_id }); // an allowed value goes through
  // Writing sqlite_schema is refused again once the migration is done.
  expect(() => db.prepare("UPDATE sqlite_schema SET sql = sql WHERE name = 'tasks'").run()).toThrow(
    /may not be modified/,
  );
});

test('a sidecar migrated to it keeps every row, is whole, and another connection reads the new definitions', () => {
  for (let i = 0; i < 3; i++) createHandoff(room, alice, { summary: `h${i}` });
  const db = room.sidecar.db;
  asBeforeMigration12(db);
  expect(checks(db).tasks).toBe("CHECK (status IN ('working','input_required','completed','failed','cancelled'))");
  const rows = db.prepare('SELECT * FROM handoffs ORDER BY id').all();
  // Another connection, its schema read before: SQLite names the CHECK a row fails as that connection knows it.
  const other = new Database(room.sidecar.path);
  const refused = () => {
    try {
      other.prepare("UPDATE tasks SET status = 'bogus'").run();
      return 'allowed';
    } catch (error) {
      return (error as Error).message;
    }
  };
  try {
    expect(refused()).toMatch(/CHECK constraint failed: status IN \(/);
    expect(migrate(db, 0)).toEqual([12]);
    expect(checks(db).tasks).toMatch(/^CHECK \(status = 'working' OR/);
    expect(checks(db).handoffs).toMatch(/^CHECK \(status = 'open' OR/);
    expect(refused()).toMatch(/CHECK constraint failed: status = 'working' OR/);
    expect(db.prepare('SELECT * FROM handoffs ORDER BY id').all()).toEqual(rows);
    expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  } finally {
    other.close();
  }
  // Opened again, the room works on it.
  room.close();
  room = openRoom(t.artifact, { clock: t.clock, command: 'vitest' });
  t.room = room;
  expect(createHandoff(room, alice, { summary: 'after' }).handoff.status).toBe('open');
});

test('a definition that is not the one replaced is left as it was', () => {
  const db = room.sidecar.db;
  asBeforeMigration12(db);
  rewriteDefinitions(db, [
    {
      table: 'tasks',
      was: "CHECK (status IN ('working','input_required','completed','failed','cancelled'))",
      now: "CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled'))",
    },
  ]);
  expect(migrate(db, 0)).toEqual([12]);
  expect(checks(db).tasks).toBe("CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled'))");
  expect(checks(db).handoffs).toMatch(/^CHECK \(status = 'open' OR/);
  expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
});
