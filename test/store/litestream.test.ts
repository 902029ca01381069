// A sidecar Litestream replicates: the room leaves checkpoints to it (its
// own only past 40,000 pages of write-ahead log) and says so; any other
// sidecar keeps SQLite's checkpoint at 1,000 pages. (Under `litestream
// replicate -exec` itself: `npm run test:scale-out`.)
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { LITESTREAM_CHECKPOINT_PAGES } from '../../src/store/litestream.js';
import { openSidecar, sidecarPath } from '../../src/store/sidecar.js';
import { tempDir } from '../helpers/room.js';

const autocheckpoint = (db: Database.Database) => db.pragma('wal_autocheckpoint', { simple: true });

test('a sidecar Litestream replicates has its checkpoints left to Litestream; another keeps SQLite’s', () => {
  const dir = tempDir();
  const plain = path.join(dir, 'plain.md');
  const replicated = path.join(dir, 'replicated.md');
  for (const file of [plain, replicated]) writeFileSync(file, '# Notes\n');
  // Litestream's own table, as it makes it in a database it replicates.
  openSidecar(replicated, { mode: 'write', now: 0 }).close();
  const made = new Database(sidecarPath(replicated));
  made.exec('CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER)');
  made.close();

  const a = openSidecar(plain, { mode: 'write', now: 0 });
  const b = openSidecar(replicated, { mode: 'write', now: 0 });
  try {
    expect([a.litestream, autocheckpoint(a.db)]).toEqual([false, 1000]);
    expect([b.litestream, autocheckpoint(b.db)]).toEqual([true, LITESTREAM_CHECKPOINT_PAGES]);
  } finally {
    a.close();
    b.close();
  }
});
