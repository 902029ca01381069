// When the disk says no. The store's commit is made to fail at its seam
// (GroupCommit.beforeCommit) the way SQLite reports a failed WAL fsync, a
// full disk or a busy database, while requests of both doors share the
// batch: every one of them gets the error (REST problem+json, MCP a JSON-RPC
// error, with data.reason), nothing is published, and the sidecar after a
// restart holds exactly what was acknowledged. A full or busy disk refuses
// and goes on; a failed fsync refuses every write from then on.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { listHandoffs, LOCAL_OPERATOR, openRoom } from '../helpers/engine.js';
import { isMethod, listen, nextFrame, type SseClient } from '../helpers/mcp-wire.js';
import { dumpDatabase } from '../helpers/room.js';
import { rpc, startTestServer, type TestServer } from '../helpers/server.js';
import { watchTheDisk } from '../../src/cli/disk-watch.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

const FAULTS = [
  { code: 'SQLITE_FULL', status: 507, problem: 'disk_full', reason: 'disk full', fatal: false },
  { code: 'SQLITE_BUSY', status: 503, problem: 'unavailable', reason: 'busy', fatal: false },
  { code: 'SQLITE_IOERR_FSYNC', status: 503, problem: 'unavailable', reason: 'I/O error', fatal: true },
] as const;

type Fault = (typeof FAULTS)[number];

/** The next commit fails as SQLite would report `code`; later ones go through. */
function failNextCommit(server: TestServer, code: string): void {
  server.room.commits.beforeCommit = () => {
    server.room.commits.beforeCommit = null;
    throw new Database.SqliteError(code === 'SQLITE_FULL' ? 'database or disk is full' : 'disk I/O error', code);
  };
}

/** How many changes the bus was given from now on. */
function countPublished(server: TestServer): () => number {
  let published = 0;
  const publish = server.room.bus.publish.bind(server.room.bus);
  server.room.bus.publish = (change) => {
    published += 1;
    publish(change);
  };
  return () => published;
}

const restCreate = (server: TestServer, summary: string) =>
  fetch(`${server.http.restUrl}/handoffs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.tokens.alice}`, 'content-type': 'application/json' },
    body: JSON.stringify({ summary }),
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));

const mcpCreate = (server: TestServer, summary: string) =>
  rpc(
    server.http.mcpUrl,
    'tools/call',
    { name: 'handoff_create', arguments: { summary } },
    { token: server.tokens.bob },
  );

const handoffCount = (server: TestServer): number =>
  listHandoffs(server.room, LOCAL_OPERATOR, { limit: 500 }).handoffs.length;

/** Three creates, two over REST and one over MCP, that run in one batch. */
async function createsInOneBatch(server: TestServer) {
  const release = server.room.commits.hold();
  const answers = Promise.all([restCreate(server, 'one'), mcpCreate(server, 'two'), restCreate(server, 'three')]);
  await expect.poll(() => server.room.commits.waiting).toBe(3);
  release();
  return answers;
}

function expectRefusedByTheDisk(fault: Fault, answers: Awaited<ReturnType<typeof createsInOneBatch>>): void {
  const [first, second, third] = answers;
  for (const rest of [first, third]) {
    expect(rest.status).toBe(fault.status);
    expect(rest.headers.get('content-type')).toBe('application/problem+json');
    expect(rest.body).toMatchObject({
      status: fault.status,
      code: fault.problem,
      details: { reason: fault.reason, cause: fault.code },
    });
    expect(rest.body.detail).toMatch(/while committing this change/);
  }
  expect(second.status).toBe(fault.status);
  expect(second.body.error).toMatchObject({
    code: -32050,
    data: { reason: fault.reason, cause: fault.code, code: fault.problem },
  });
  expect(second.body.result).toBeUndefined();
}

describe.each(FAULTS)('a commit failing with $code', (fault) => {
  test(`every request of the batch gets ${fault.status} with the reason; nothing is published or kept`, async () => {
    s = await startTestServer();
    const stream: SseClient = await listen(s, 'carol', { resourceSubscriptions: ['workspace:///.room/handoffs'] });
    await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
    const published = countPublished(s);
    const before = dumpDatabase(s.room);

    failNextCommit(s, fault.code);
    expectRefusedByTheDisk(fault, await createsInOneBatch(s));
    expect(published()).toBe(0);
    expect(dumpDatabase(s.room)).toEqual(before);
    expect(stream.frames.filter(isMethod('notifications/resources/updated'))).toEqual([]);

    // Reads go on either way.
    const read = await fetch(`${s.http.restUrl}/artifact`, { headers: { authorization: `Bearer ${s.tokens.carol}` } });
    expect(read.status).toBe(200);
    if (fault.reason === 'busy') expect((await restCreate(s, 'again?')).status).toBe(201);

    const after = await restCreate(s, 'after the fault');
    if (fault.fatal) {
      // After a failed fsync nothing more is written: the kernel may have dropped the pages.
      expect(after.status).toBe(503);
      expect(after.body.details).toMatchObject({ reason: 'I/O error', cause: 'SQLITE_IOERR_FSYNC' });
      expect(published()).toBe(0);
    } else {
      // Once there is room again (or the sidecar is free), writes are taken.
      expect(after.status).toBe(201);
      await nextFrame(stream, isMethod('notifications/resources/updated'), 'the update of a write that went through');
    }
    stream.abort();

    // The room reopened from disk holds what was acknowledged, and nothing else.
    const acknowledged = handoffCount(s);
    await s.http.close();
    s.room.close();
    const reopened = openRoom(s.artifact, { mode: 'read' });
    try {
      const summaries = listHandoffs(reopened, LOCAL_OPERATOR, { limit: 500 }).handoffs.map((h) => h.summary);
      expect(summaries).toHaveLength(acknowledged);
      expect(summaries).not.toContain('one');
      expect(summaries).not.toContain('two');
      expect(summaries).not.toContain('three');
    } finally {
      reopened.close();
    }
  });
});

test('a read that ran while the failing batch was open is refused too: no answer shows what was not kept', async () => {
  s = await startTestServer();
  await s.room.commits.settled();
  failNextCommit(s, 'SQLITE_FULL');
  const release = s.room.commits.hold();
  const created = mcpCreate(s, 'never kept');
  await expect.poll(() => s!.room.commits.waiting).toBe(1);
  const listed = fetch(`${s.http.restUrl}/handoffs`, { headers: { authorization: `Bearer ${s.tokens.bob}` } });
  await new Promise((resolve) => setTimeout(resolve, 200)); // the read has run against the open batch
  release();
  const [create, list] = await Promise.all([created, listed]);
  expect(create.status).toBe(507);
  expect(list.status).toBe(507);
  expect(((await list.json()) as any).details).toMatchObject({ reason: 'disk full', cause: 'SQLITE_FULL' });
  // The next read runs on a batch of its own, and shows nothing of the failed one.
  const again = await fetch(`${s.http.restUrl}/handoffs`, { headers: { authorization: `Bearer ${s.tokens.bob}` } });
  expect(again.status).toBe(200);
  expect(JSON.stringify(await again.json())).not.toContain('never kept');
});

test('an approval whose pending write cannot be committed leaves the file and the proposal as they were', async () => {
  s = await startTestServer();
  const headers = { authorization: `Bearer ${s.tokens.alice}`, 'content-type': 'application/json' };
  const proposed = await fetch(`${s.http.restUrl}/proposals`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ base_revision: 1, content: '# Test room\n\nApproved?\n', summary: 'An edit' }),
  });
  const { proposal } = (await proposed.json()) as { proposal: { proposal_id: string } };
  const before = dumpDatabase(s.room);
  const published = countPublished(s);
  failNextCommit(s, 'SQLITE_FULL');
  const approved = await rpc(
    s.http.mcpUrl,
    'tools/call',
    { name: 'proposal_approve', arguments: { proposal_id: proposal.proposal_id } },
    { token: s.tokens.dave },
  );
  expect(approved.status).toBe(507);
  expect(approved.body.error).toMatchObject({ code: -32050, data: { reason: 'disk full' } });
  expect(dumpDatabase(s.room)).toEqual(before);
  expect(published()).toBe(0);
  const { readFileSync } = await import('node:fs');
  expect(readFileSync(s.artifact, 'utf8')).toBe('# Test room\n');
  // With room again, the same approval goes through.
  const again = await rpc(
    s.http.mcpUrl,
    'tools/call',
    { name: 'proposal_approve', arguments: { proposal_id: proposal.proposal_id } },
    { token: s.tokens.dave },
  );
  expect(again.body.result.structuredContent.proposal.status).toBe('accepted');
  expect(readFileSync(s.artifact, 'utf8')).toBe('# Test room\n\nApproved?\n');
});

test('when the artifact’s temp file cannot be written for a full disk: 507 on both doors, the file untouched', async () => {
  s = await startTestServer();
  const { failArtifactWrites } = await import('../helpers/fail-artifact-writes.js');
  const headers = { authorization: `Bearer ${s.tokens.alice}`, 'content-type': 'application/json' };
  const propose = async (content: string) => {
    const r = await fetch(`${s!.http.restUrl}/proposals`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ base_revision: 1, content, summary: 'An edit' }),
    });
    return ((await r.json()) as { proposal: { proposal_id: string } }).proposal.proposal_id;
  };
  const first = await propose('# One\n');
  const second = await propose('# Two\n');
  const restore = failArtifactWrites(s.dir, 'write');
  try {
    const rest = await fetch(`${s.http.restUrl}/proposals/${first}/approve`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${s.tokens.dave}` },
      body: '{}',
    });
    expect(rest.status).toBe(507);
    expect(await rest.json()).toMatchObject({ code: 'disk_full', details: { reason: 'disk full', cause: 'ENOSPC' } });
    const mcp = await rpc(
      s.http.mcpUrl,
      'tools/call',
      { name: 'proposal_approve', arguments: { proposal_id: second } },
      { token: s.tokens.dave },
    );
    expect(mcp.status).toBe(507);
    expect(mcp.body.error).toMatchObject({ code: -32050, data: { reason: 'disk full', code: 'disk_full' } });
  } finally {
    restore();
  }
  const { readFileSync } = await import('node:fs');
  expect(readFileSync(s.artifact, 'utf8')).toBe('# Test room\n');
  expect(handoffCount(s)).toBe(0);
});

test(
  'a sidecar another connection holds past the busy timeout: 503 busy, nothing kept, and the next change goes through',
  { timeout: 30_000 },
  async () => {
    s = await startTestServer();
    await s.room.commits.idle(); // the room's own batch committed: the lock is the other connection's alone
    const other = new Database(s.room.sidecar.path);
    other.exec('BEGIN EXCLUSIVE');
    let busy: Awaited<ReturnType<typeof restCreate>>;
    try {
      busy = await restCreate(s, 'while held');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(busy.status).toBe(503);
    expect(busy.body).toMatchObject({ code: 'unavailable', details: { reason: 'busy', cause: 'SQLITE_BUSY' } });
    expect(busy.headers.get('retry-after')).not.toBeNull();
    expect(handoffCount(s)).toBe(0);
    expect((await restCreate(s, 'again')).status).toBe(201);
  },
);

test('a full disk is said in the log as a warning when commits begin to fail, and once when they succeed again', async () => {
  s = await startTestServer();
  const said: [string, string][] = [];
  const logger = {
    logsInfo: true,
    info: (_fields: object, message: string) => said.push(['info', message]),
    warn: (_fields: object, message: string) => said.push(['warn', message]),
    error: (_fields: object, message: string) => said.push(['error', message]),
    infoLine: () => {},
  };
  watchTheDisk(s.room, s.http, logger);
  await s.room.commits.idle();
  failNextCommit(s, 'SQLITE_FULL');
  expect((await createsInOneBatch(s)).map((answer) => answer.status)).toEqual([507, 507, 507]);
  expect((await restCreate(s, 'taken')).status).toBe(201);
  expect((await restCreate(s, 'taken too')).status).toBe(201);
  expect(said).toEqual([
    [
      'warn',
      expect.stringMatching(
        /^the disk refused a commit \(.*full.*\); writes are refused until one succeeds, reads go on$/,
      ),
    ],
    ['info', 'the disk takes the room’s writes again'],
  ]);
});
