// Anchor (c): a bare better-sqlite3 loop of one-row transactions, WAL,
// synchronous=FULL: as many durable commits per second as this disk and
// SQLite allow one writer, with no server around them.
// Usage: node sqlite-loop.js DB_FILE SECONDS  (prints {"perSecond":…})
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]!);
const seconds = Number(process.argv[3] ?? 5);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, body TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO rows (at, body) VALUES (?, ?)');
const one = db.transaction((at: number) => insert.run(at, 'a row of about the size of an event'));
const started = performance.now();
const until = started + seconds * 1000;
let count = 0;
while (performance.now() < until) {
  one.immediate(Date.now());
  count++;
}
const elapsed = (performance.now() - started) / 1000;
db.close();
process.stdout.write(`${JSON.stringify({ perSecond: count / elapsed, count })}\n`);
