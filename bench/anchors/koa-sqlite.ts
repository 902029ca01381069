// Anchor (a): Koa + @koa/router + better-sqlite3, a point read by id and
// nothing else (no auth, no headers checked, no validation). The floor of
// the room's own HTTP stack for a read such as tasks/get.
// Usage: node koa-sqlite.js DB_FILE  (prints {"port":…} once listening)
import Router from '@koa/router';
import Database from 'better-sqlite3';
import Koa from 'koa';

const db = new Database(process.argv[2]!);
db.pragma('journal_mode = WAL');
db.exec(`CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, status TEXT NOT NULL, owner TEXT NOT NULL,
  created_at INTEGER NOT NULL, last_updated_at INTEGER NOT NULL, ttl_ms INTEGER NOT NULL)`);
db.prepare(`INSERT OR REPLACE INTO tasks VALUES ('ta_bench', 'working', 'alice', 0, 0, 86400000)`).run();
const get = db.prepare('SELECT * FROM tasks WHERE id = ?');

const router = new Router();
router.get('/tasks/:id', (ctx) => {
  const row = get.get(ctx.params.id);
  if (!row) ctx.throw(404);
  ctx.body = row;
});
const app = new Koa();
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
