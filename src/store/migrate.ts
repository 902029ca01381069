// Brings a sidecar up to the schema this ce knows, each migration once.
import type { Database } from 'better-sqlite3';
import { DomainError } from '../errors.js';
import { migrations } from './migrations.js';

export function migrate(db: Database, now: number): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  // IMMEDIATE: two processes opening a new sidecar at once apply each
  // migration exactly once.
  const apply = db.transaction((): number[] => {
    const done = new Set(
      (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
    );
    const known = Math.max(0, ...migrations.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known) {
      // Made by a later ce: what its newer migrations wrote, this one would misread.
      throw new DomainError(
        'conflict',
        `the sidecar has schema version ${newest}, newer than this ce knows (${known}); upgrade ce`,
        { schema_version: newest, known },
      );
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      db.exec(migration.sql);
      migration.run?.(db);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        now,
      );
      applied.push(migration.version);
    }
    return applied;
  });
  return apply.immediate();
}
