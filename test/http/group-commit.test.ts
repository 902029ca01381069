// Group commit in the served room: the changes of one turn share one commit,
// a refused one rolls back alone with the refusal it has when alone, and no
// answer leaves before the commit that holds it. A second, read-only
// connection to the sidecar shows what is on disk when each answer arrives.
import Database from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { change, createHandoff, DomainError, openRoom } from '../helpers/engine.js';
import { sidecarPath } from '../../src/store/sidecar.js';
import { callTool, isMethod, listen, nextFrame, type RawResponse } from '../helpers/mcp-wire.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer | undefined;
let t: TestRoom | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
  t?.close();
  t = undefined;
});

/** Handoffs whose summary starts with `prefix`, as a second connection reads them from disk. */
function onDisk(artifact: string, prefix: string): string[] {
  const db = new Database(sidecarPath(artifact), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT summary FROM handoffs WHERE summary LIKE ? ORDER BY summary').all(`${prefix}%`);
    return (rows as { summary: string }[]).map((row) => row.summary);
  } finally {
    db.close();
  }
}

test('changes that arrive together share one commit; a refused one rolls back alone; answers leave after the commit', async () => {
  s = await startTestServer();
  const artifact = s.artifact;
  const log: string[] = [];
  await s.room.commits.settled(); // the expiry sweep the room ran as it started
  s.room.commits.onCommitted((size) => log.push(`commit of ${size}`));
  const published = s.room.bus.subscribe();
  const release = s.room.commits.hold();

  const answers = new Map<string, RawResponse>();
  const seenOnDisk = new Map<string, string[]>();
  const send = (name: string, args: Record<string, unknown>) =>
    callTool(s!, 'alice', 'handoff_create', args).then((response) => {
      // The moment the answer arrives: what a reader of the file sees.
      seenOnDisk.set(name, onDisk(artifact, 'batch '));
      log.push(`answer ${name}`);
      answers.set(name, response);
    });
  const names = ['batch 1', 'batch 2', 'batch 3', 'batch 4', 'batch 5'];
  const sent = [
    ...names.slice(0, 3).map((name) => send(name, { summary: name, assignee: 'bob' })),
    // Refused inside its change (an assignee who is not a participant).
    send('refused', { summary: 'batch refused', assignee: 'zed' }),
    ...names.slice(3).map((name) => send(name, { summary: name, assignee: 'bob' })),
  ];

  // All six have run in the open batch; none is on disk and no answer has left.
  await expect.poll(() => s!.room.commits.waiting, { timeout: 15_000 }).toBe(6);
  expect(onDisk(artifact, 'batch ')).toEqual([]);
  expect(log).toEqual([]);
  expect(published.pending).toBe(0); // events are published after the commit, never before

  release();
  await Promise.all(sent);

  // One commit with the five kept changes, and only then the six answers.
  expect(log[0]).toBe('commit of 5');
  expect(log.slice(1).sort()).toEqual([...names, 'refused'].map((name) => `answer ${name}`).sort());
  for (const name of [...names, 'refused']) expect(seenOnDisk.get(name), name).toEqual(names);
  expect(published.pending).toBe(5);
  published.close();

  for (const name of names) {
    const body = answers.get(name)!.body;
    expect(body.result.isError, name).not.toBe(true);
    expect(body.result.structuredContent.handoff.summary).toBe(name);
  }
  // The refusal is the one the same request gets alone.
  const alone = await callTool(s, 'alice', 'handoff_create', { summary: 'batch refused', assignee: 'zed' });
  const refused = answers.get('refused')!;
  expect(refused.status).toBe(alone.status);
  expect(refused.body.result).toEqual(alone.body.result);
  expect(refused.body.result.isError).toBe(true);
  expect(refused.body.result.structuredContent.error.code).toBe('invalid_input');
  expect(onDisk(artifact, 'batch ')).toEqual(names);
});

test('in a batch, a change that wrote rows and then was refused leaves nothing; the changes around it stay', async () => {
  s = await startTestServer();
  await s.room.commits.settled(); // the expiry sweep the room ran as it started
  const release = s.room.commits.hold();
  const { room } = s;
  const add = (name: string) => change(room, ({ now }) => room.store.insertParticipant({ name, created_at: now }));
  add('before');
  expect(() =>
    change(room, ({ now }) => {
      room.store.insertParticipant({ name: 'half-done', created_at: now });
      throw new DomainError('conflict', 'refused after writing');
    }),
  ).toThrow('refused after writing');
  add('after');
  const settled = room.commits.settled();
  expect(room.commits.waiting).toBe(3);
  release();
  await settled;
  const db = new Database(sidecarPath(s.artifact), { readonly: true, fileMustExist: true });
  const names = (db.prepare('SELECT name FROM participants').all() as { name: string }[]).map((row) => row.name);
  db.close();
  expect(names).toEqual(expect.arrayContaining(['before', 'after']));
  expect(names).not.toContain('half-done');
});

test('a room that is not served commits each change before it returns', () => {
  t = makeRoom();
  const room = openRoom(`${t.dir}/other.md`, { command: 'vitest' });
  try {
    change(room, ({ now }) => room.store.insertParticipant({ name: 'erin', created_at: now }));
    expect(room.commits.waiting).toBe(0);
    const db = new Database(sidecarPath(`${t.dir}/other.md`), { readonly: true, fileMustExist: true });
    const row = db.prepare('SELECT name FROM participants WHERE name = ?').get('erin');
    db.close();
    expect(row).toEqual({ name: 'erin' });
  } finally {
    room.close();
  }
});

test('when SQLite ends the whole batch, none of its changes is acknowledged or published', async () => {
  s = await startTestServer();
  await s.room.commits.settled(); // the expiry sweep the room ran as it started
  const { room } = s;
  const published = room.bus.subscribe();
  const release = room.commits.hold();
  change(room, ({ now }) => room.store.insertParticipant({ name: 'kept-for-now', created_at: now }));
  const settled = room.commits.settled();
  // A change during which SQLite rolls the whole transaction back (as a full disk can).
  expect(() => change(room, () => room.store.db.exec('ROLLBACK'))).toThrow();
  await expect(settled).rejects.toThrow();
  release();
  expect(room.commits.waiting).toBe(0);
  expect(published.pending).toBe(0);
  const db = new Database(sidecarPath(s.artifact), { readonly: true, fileMustExist: true });
  const row = db.prepare('SELECT name FROM participants WHERE name = ?').get('kept-for-now');
  db.close();
  expect(row).toBeUndefined();
  // The room goes on: the next change starts a batch of its own.
  change(room, ({ now }) => room.store.insertParticipant({ name: 'next', created_at: now }));
  await room.commits.settled();
  published.close();
});

test('two creations with one idempotency key in one batch make one handoff; the second is the replay', async () => {
  s = await startTestServer();
  await s.room.commits.settled(); // the expiry sweep the room ran as it started
  const release = s.room.commits.hold();
  const args = { summary: 'batch once', assignee: 'bob', idempotency_key: 'same-key' };
  const sent = [callTool(s, 'alice', 'handoff_create', args), callTool(s, 'alice', 'handoff_create', args)];
  await expect.poll(() => s!.room.commits.waiting, { timeout: 15_000 }).toBe(2);
  release();
  const [first, second] = (await Promise.all(sent)).map((r) => r.body.result.structuredContent);
  expect(second.handoff.handoff_id).toBe(first.handoff.handoff_id);
  expect([first.replayed, second.replayed].sort()).toEqual([false, true]);
  expect(onDisk(s.artifact, 'batch once')).toEqual(['batch once']);
});

test('a listen that arrives while a batch is open reads and is acknowledged once that batch is on disk', async () => {
  s = await startTestServer();
  await s.room.commits.settled();
  const release = s.room.commits.hold();
  // A task made in the open batch: not on disk yet.
  const made = createHandoff(s.room, caller('alice'), { summary: 'held task', assignee: 'bob' });
  expect(s.room.commits.waiting).toBe(1);
  let onDiskAtAck: string[] | undefined;
  const opened = listen(s, 'alice', { taskIds: [made.handoff.task_id] }, { tasks: true, id: 'held' }).then(
    async (stream) => {
      await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
      onDiskAtAck = onDisk(s!.artifact, 'held ');
      return stream;
    },
  );
  // The listen waits for the batch: nothing has come back while it is held.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(onDiskAtAck).toBeUndefined();
  expect(onDisk(s.artifact, 'held ')).toEqual([]);

  release();
  const stream = await opened;
  expect(onDiskAtAck).toEqual(['held task']);
  expect(stream.frames[0].params.notifications).toEqual({ taskIds: [made.handoff.task_id] });
  stream.abort();
});
