// The probes, over real HTTP: /healthz answers while the process does;
// /readyz says whether the room can do its work, 200 or 503, check by check,
// with no token and no room content. (Both refuse a Host that is not the
// room's: test/http/room-names.test.ts.)
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { rpc, startTestServer, type TestServer } from '../helpers/server.js';
import { openFileLimit, streamsWithin } from '../../src/http/open-files.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

const get = async (path: string) => {
  const response = await fetch(`${s!.http.baseUrl}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
};

const ALL_OK = { sidecar: 'ok', writer_lock: 'ok', last_commit: 'ok', file: 'ok' };

test('/healthz and /readyz answer 200 without a token, saying nothing of the room', async () => {
  s = await startTestServer();
  expect(await get('/healthz')).toEqual({
    status: 200,
    type: 'application/json; charset=utf-8',
    body: { status: 'ok' },
  });
  expect(await get('/readyz')).toEqual({
    status: 200,
    type: 'application/json; charset=utf-8',
    body: { status: 'ready', checks: ALL_OK },
  });
});

test('/readyz counts open streams, and says the most it serves, for an admin only: anyone else reads the plain answer', async () => {
  s = await startTestServer({ maxStreams: 300 });
  const readyz = (token: string) =>
    fetch(`${s!.http.baseUrl}/readyz`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json());
  expect(await readyz(s.tokens.admin)).toEqual({
    status: 'ready',
    checks: ALL_OK,
    streams: { listen: 0, page: 0, get_mcp: 0 },
    // 300, or fewer when this process may open fewer files.
    max_streams: streamsWithin(300, openFileLimit()),
  });
  for (const token of [s.tokens.alice, 'cr_not_a_token']) {
    expect(await readyz(token)).toEqual({ status: 'ready', checks: ALL_OK });
  }
});

test('/readyz is 503 once a commit failed because the disk refused it, naming the check; /healthz stays 200', async () => {
  s = await startTestServer();
  // The sidecar cannot be written any more, as SQLite says of a failed WAL fsync.
  s.room.commits.beforeCommit = () => {
    throw new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_FSYNC');
  };
  const refused = await rpc(
    s.http.mcpUrl,
    'tools/call',
    { name: 'handoff_create', arguments: { summary: 'Lost' } },
    {
      token: s.tokens.alice,
    },
  );
  expect(refused.body.error).toBeDefined();
  const ready = await get('/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body).toEqual({
    status: 'not_ready',
    checks: {
      ...ALL_OK,
      last_commit: expect.stringMatching(/^failed: the disk failed to write the sidecar \(SQLITE_IOERR_FSYNC/),
    },
  });
  expect(JSON.stringify(ready.body)).not.toContain('Lost');
  expect((await get('/healthz')).status).toBe(200);
});

test('/readyz after a commit the full disk refused: ready again as soon as the disk has room, before any write', async () => {
  s = await startTestServer();
  await s.room.commits.idle(); // the start's own batch committed: the next one is the create's
  // The disk says it is full once; the test's disk has room again at once, as after a clean-up.
  s.room.commits.beforeCommit = () => {
    s!.room.commits.beforeCommit = null;
    throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
  };
  const refused = await rpc(
    s.http.mcpUrl,
    'tools/call',
    { name: 'handoff_create', arguments: { summary: 'Refused' } },
    { token: s.tokens.alice },
  );
  expect(refused.status).toBe(507);
  expect(s.room.commits.verdicts.lastCommit).toMatchObject({ diskFull: true });
  const ready = await get('/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ status: 'ready', checks: ALL_OK });
});

test('/readyz is 503 when the writer’s lock is not this process’s any more', async () => {
  s = await startTestServer();
  // Another live process (this one's parent) named as the holder.
  s.room.sidecar.db.prepare('UPDATE writer_lock SET pid = ?, process_start = NULL WHERE id = 1').run(process.ppid);
  const ready = await get('/readyz');
  expect(ready).toMatchObject({
    status: 503,
    body: {
      status: 'not_ready',
      checks: { ...ALL_OK, writer_lock: expect.stringMatching(new RegExp(`^held by process ${process.ppid} on `)) },
    },
  });
});

test('every answer carries X-Request-Id: the caller’s own when usable, else a fresh one', async () => {
  s = await startTestServer();
  const idOf = async (headers: Record<string, string>, path = '/healthz') =>
    (await fetch(`${s!.http.baseUrl}${path}`, { headers })).headers.get('x-request-id');
  expect(await idOf({ 'x-request-id': 'agent-7/call-42' })).toBe('agent-7/call-42');
  expect(await idOf({ 'x-request-id': 'agent-7/call-42' }, '/workspace/session')).toBe('agent-7/call-42'); // a 401 too
  const fresh = [
    await idOf({}),
    await idOf({ 'x-request-id': 'has spaces' }),
    await idOf({ 'x-request-id': 'x'.repeat(129) }),
  ];
  for (const id of fresh) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(fresh).size).toBe(3);
});
