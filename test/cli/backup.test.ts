// ce backup while the room runs and is being written to, and ce restore:
// the copy is consistent (it opens, passes the integrity check), holds every
// write acknowledged before it began, and its file is its latest revision; a
// restore never replaces a sidecar a room process writes, and keeps what it
// replaces.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { onTestFinished, expect, test } from 'vitest';
import { addParticipant, createSession, LOCAL_OPERATOR, openRoom } from '../helpers/engine.js';
import { hashBytes } from '../../src/store/artifact-file.js';
import { sidecarPath } from '../../src/store/sidecar.js';
import { ceServe } from '../helpers/ce-serve.js';
import { approveAnEdit } from '../helpers/rest-edit.js';
import { withRoomFile } from '../helpers/room-file.js';
import { tempDir } from '../helpers/room.js';
import { ce, failedWith, okJson } from '../helpers/run-ce.js';

const SLOW = { timeout: 120_000 };

/** A room with alice, and her session's token. */
const prepareRoom = () =>
  withRoomFile((room) => {
    addParticipant(room, LOCAL_OPERATOR, { name: 'alice' });
    return createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read', 'write', 'approve'] });
  });

test(
  'a backup taken under write load opens, passes the integrity check and holds every write acknowledged before it',
  SLOW,
  async () => {
    const { file, token } = prepareRoom();
    const served = await ceServe(file);
    onTestFinished(served.kill);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    // Two writers: each creates a handoff and cancels its task (the room holds at most 32 active tasks).
    const acknowledged: { summary: string; at: number }[] = [];
    let writing = true;
    const writer = async (name: string) => {
      for (let i = 0; writing; i++) {
        const summary = `${name} ${i}`;
        const created = await fetch(`${served.restUrl}/handoffs`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ summary }),
        });
        expect(created.status).toBe(201);
        const { handoff } = (await created.json()) as { handoff: { task_id: string } };
        acknowledged.push({ summary, at: performance.now() });
        const cancelled = await fetch(`${served.restUrl}/task/cancel`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ task_id: handoff.task_id }),
        });
        expect(cancelled.status).toBe(200);
      }
    };
    const writers = Promise.all([writer('a'), writer('b')]);
    await expect.poll(() => acknowledged.length, { timeout: 30_000 }).toBeGreaterThan(30);

    const dest = path.join(tempDir(), 'copy.md');
    const startedAt = performance.now();
    const before = acknowledged.filter((write) => write.at < startedAt).map((write) => write.summary);
    const report = okJson<{ artifact: string; sidecar: string; revision: number }>(
      await ce(['backup', file, dest, '--json']),
    );
    writing = false;
    await writers;
    expect(report).toEqual({ artifact: dest, sidecar: sidecarPath(dest), revision: 1, unrecorded_edit: false });

    const copy = openRoom(dest, { mode: 'read' });
    try {
      expect(copy.store.db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      const summaries = new Set(
        (copy.store.db.prepare('SELECT summary FROM handoffs').all() as { summary: string }[]).map(
          (row) => row.summary,
        ),
      );
      expect(before.filter((summary) => !summaries.has(summary))).toEqual([]);
      // The copy is a room of its own: no writer's lock of the room it came from, its file its latest revision.
      expect(copy.store.db.prepare('SELECT * FROM writer_lock').all()).toEqual([]);
      const latest = copy.workspace.currentRevision()!;
      expect(hashBytes(readFileSync(dest))).toBe(latest.hash);
    } finally {
      copy.close();
    }
    expect(readdirSync(path.dirname(dest)).sort()).toEqual(['copy.md', 'copy.md.commonroom.db']);

    // A backup never overwrites; a restore never replaces the sidecar of a running room.
    failedWith(await ce(['backup', file, dest]), 1, /copy\.md exists; a backup never overwrites a file/);
    failedWith(await ce(['restore', dest, file]), 1, /a room process is running for .*notes\.md/);
    expect(await served.stop()).toBe(0);

    // Stopped, the room takes the backup; what it had is kept beside it.
    // Named as typed, relative to where ce runs; what was kept is named in full, the room's file and sidecar alike.
    const restored = okJson<{ kept: string[] }>(
      await ce(['restore', path.relative(path.dirname(file), dest), path.basename(file), '--json'], {
        cwd: path.dirname(file),
      }),
    );
    for (const kept of restored.kept) expect(path.isAbsolute(kept), kept).toBe(true);
    expect(restored.kept.map((kept) => path.basename(kept))).toEqual([
      expect.stringMatching(/^notes\.md\.before-restore-/),
      expect.stringMatching(/^notes\.md\.commonroom\.db\.before-restore-/),
    ]);
    for (const kept of restored.kept) expect(existsSync(kept)).toBe(true);
    const room = openRoom(file, { mode: 'read' });
    try {
      const count = (room.store.db.prepare('SELECT count(*) AS n FROM handoffs').get() as { n: number }).n;
      expect(count).toBeGreaterThanOrEqual(before.length);
    } finally {
      room.close();
    }
    // It serves again, from the restored sidecar.
    const again = await ceServe(file);
    onTestFinished(again.kill);
    const read = await fetch(`${again.restUrl}/handoffs?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    expect(await again.stop()).toBe(0);
  },
);

test(
  'a room from its sidecar alone: checked, its file written from the latest revision, served again',
  SLOW,
  async () => {
    const { file, token } = prepareRoom();
    const served = await ceServe(file);
    onTestFinished(served.kill);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${served.restUrl}/handoffs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ summary: 'kept by the sidecar' }),
    });
    expect(created.status).toBe(201);
    // A replica's sidecar: the one a backup made, without its file.
    const replica = path.join(tempDir(), 'replica.md');
    okJson(await ce(['backup', file, replica, '--json']));
    expect(await served.stop()).toBe(0);
    const latest = readFileSync(replica);
    rmSync(replica);
    // As Litestream leaves it in a replica: its own tables beside the room's.
    const replicaDb = new Database(sidecarPath(replica));
    replicaDb.exec(
      'CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER); CREATE TABLE _litestream_lock (id INTEGER);',
    );
    replicaDb.close();

    // Brought back in a new place, with no file there yet.
    const dest = path.join(tempDir(), 'notes.md');
    const restored = okJson<{ revision: number; kept: string[] }>(
      await ce(['restore', '--sidecar', sidecarPath(replica), dest, '--json']),
    );
    expect(restored).toMatchObject({ revision: 1, kept: [] });
    expect(readFileSync(dest)).toEqual(latest);
    const room = openRoom(dest, { mode: 'read' });
    try {
      expect(room.store.db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(room.store.db.prepare('SELECT * FROM writer_lock').all()).toEqual([]);
      expect(
        room.store.db.prepare("SELECT name FROM sqlite_master WHERE name LIKE '\\_litestream%' ESCAPE '\\'").all(),
      ).toEqual([]);
      expect(room.store.db.prepare('SELECT summary FROM handoffs').all()).toEqual([{ summary: 'kept by the sidecar' }]);
      expect(hashBytes(readFileSync(dest))).toBe(room.workspace.currentRevision()!.hash);
    } finally {
      room.close();
    }
    const again = await ceServe(dest);
    onTestFinished(again.kill);
    const read = await fetch(`${again.restUrl}/handoffs`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await read.json()) as { handoffs: unknown[] }).handoffs).toHaveLength(1);
    expect(await again.stop()).toBe(0);

    // What is not a sidecar is refused, and nothing is touched.
    const notes = path.join(tempDir(), 'not-a-room.txt');
    writeFileSync(notes, 'plain text\n'.repeat(100));
    failedWith(
      await ce(['restore', '--sidecar', notes, dest]),
      1,
      /not-a-room\.txt is not a SQLite database; nothing was restored/,
    );
    failedWith(
      await ce(['restore', '--sidecar', `${notes}.missing`, dest]),
      1,
      /not-a-room\.txt\.missing does not exist/,
    );
    expect(readFileSync(dest)).toEqual(latest);
  },
);

test(
  'a restore that could not finish is refused before anything is copied: a sidecar of no room, a folder that is not there',
  SLOW,
  async () => {
    const { file } = prepareRoom();
    const dir = tempDir();
    const empty = path.join(dir, 'empty.db');
    writeFileSync(empty, '');
    const other = path.join(dir, 'other.db');
    const otherDb = new Database(other);
    otherDb.exec('CREATE TABLE notes (text TEXT)');
    otherDb.close();
    const before = readdirSync(path.dirname(file)).sort();
    for (const [source, name] of [
      [empty, 'empty\\.db'],
      ['/dev/null', '/dev/null'],
      [other, 'other\\.db'],
    ] as const) {
      failedWith(
        await ce(['restore', '--sidecar', source, file]),
        1,
        new RegExp(`^ce: (.*/)?${name} is not a Common Room sidecar: it holds no room .*; nothing was restored\\n$`),
      );
    }
    expect(readdirSync(path.dirname(file)).sort()).toEqual(before);

    const backup = path.join(dir, 'b1.md');
    okJson(await ce(['backup', file, backup, '--json']));
    failedWith(
      await ce(['restore', backup, '/nonexistent-dir/n.md']),
      1,
      /^ce: the directory \/nonexistent-dir does not exist\n$/,
    );
    expect(existsSync('/nonexistent-dir')).toBe(false);
  },
);

test('a backup of a read-only file, and a restore onto it, give the sidecar its owner’s read and write', async () => {
  const { file } = prepareRoom();
  chmodSync(file, 0o444);
  const dest = path.join(tempDir(), 'copy.md');
  okJson(await ce(['backup', file, dest, '--json']));
  expect(statSync(dest).mode & 0o777).toBe(0o444); // the file keeps its own bits
  expect(statSync(sidecarPath(dest)).mode & 0o777).toBe(0o644);
  rmSync(sidecarPath(file));
  okJson(await ce(['restore', dest, file, '--json']));
  expect(statSync(sidecarPath(file)).mode & 0o777).toBe(0o644);
  // A room again: a change is written to its sidecar.
  okJson(await ce(['participant', 'add', file, 'bob', '--json']));
});

test('a restore into a new place gives the file and its sidecar the backup file’s bits, as a copy would have', async () => {
  const { file } = prepareRoom();
  const backup = path.join(tempDir(), 'notes.md');
  okJson(await ce(['backup', file, backup, '--json']));
  for (const bits of [0o644, 0o640]) {
    chmodSync(backup, bits);
    const restored = path.join(tempDir(), 'notes.md');
    okJson(await ce(['restore', backup, restored, '--json']));
    expect(statSync(restored).mode & 0o777).toBe(bits);
    expect(statSync(sidecarPath(restored)).mode & 0o777).toBe(bits);
    okJson(await ce(['participant', 'add', restored, 'bob', '--json']));
    expect(statSync(sidecarPath(restored)).mode & 0o777).toBe(bits);
  }
});

test('a session revoked since the backup was made stays revoked after the restore; with no room there, ce says so', async () => {
  const { file, token } = prepareRoom();
  const backup = path.join(tempDir(), 'notes.md');
  okJson(await ce(['backup', file, backup, '--json']));
  const sessions = okJson<{ sessions: { session_id: string }[] }>(
    await ce(['session', 'list', file, '--participant', 'alice', '--json']),
  );
  okJson(await ce(['session', 'revoke', file, sessions.sessions[0]!.session_id, '--json']));

  const restored = okJson<{ revoked_again: number | null }>(await ce(['restore', backup, file, '--json']));
  expect(restored.revoked_again).toBe(1);
  const served = await ceServe(file);
  onTestFinished(served.kill);
  const read = await fetch(`${served.restUrl}/artifact`, { headers: { authorization: `Bearer ${token}` } });
  expect(read.status).toBe(401);
  expect(await served.stop()).toBe(0);

  // Into a new place, no room there to tell: the backup's sessions are as they were, and ce says so.
  const elsewhere = path.join(tempDir(), 'notes.md');
  const fresh = await ce(['restore', backup, elsewhere]);
  expect(fresh.code).toBe(0);
  expect(fresh.stdout).toMatch(
    /^no room was there: its sessions are as the backup has them, so a token revoked since the backup was made works again until revoked again/m,
  );
});

test('a backup of a file with an edit no room has recorded says the backup does not have it', async () => {
  const { file } = prepareRoom();
  const dest = path.join(tempDir(), 'notes.md');
  okJson(await ce(['backup', file, dest, '--json']));
  writeFileSync(file, `${readFileSync(file, 'utf8')}An edit made with no room running.\n`);
  const later = path.join(tempDir(), 'notes.md');
  const said = await ce(['backup', file, later]);
  expect(said.code).toBe(0);
  expect(said.stdout).toMatch(/holds an edit the room has not recorded, which this backup does not have/);
  expect(readFileSync(later, 'utf8')).not.toContain('An edit made');
  okJson(await ce(['init', file, '--json'])); // recorded
  const recorded = okJson<{ unrecorded_edit: boolean }>(await ce(['backup', file, tempDir(), '--json']));
  expect(recorded.unrecorded_edit).toBe(false);
});

/** Whether this machine lets the test mount a small tmpfs (root, outside a container that forbids it). */
const canMount = ((): boolean => {
  if (process.getuid?.() !== 0) return false;
  const dir = tempDir();
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]).status === 0;
  if (mounted) spawnSync('umount', [dir]);
  return mounted;
})();

test.runIf(canMount)('a backup onto a full disk says the disk is full, not an unexpected error', async () => {
  const { file } = prepareRoom();
  const full = tempDir();
  expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full]).status).toBe(0);
  onTestFinished(() => void spawnSync('umount', [full]));
  failedWith(
    await ce(['backup', file, path.join(full, 'notes.md')]),
    1,
    /^ce: the disk is full \(.*\): the command did not finish; free some space and run it again\n$/,
  );
});
