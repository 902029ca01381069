// One writer per sidecar: a second writer, in another process or in this
// one, is refused with `locked` and writes nothing; readers open alongside
// the writer but cannot change state; the sidecar's settings are the ones
// its durability relies on.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptHandoff,
  addParticipant,
  cancelTask,
  createHandoff,
  DomainError,
  listHandoffs,
  LOCAL_OPERATOR,
  openRoom,
  type Room,
} from '../helpers/engine.js';
import { migrations } from '../../src/store/migrations.js';
import { sidecarPath } from '../../src/store/sidecar.js';
import { readLockHolder } from '../../src/store/writer-lock.js';
import { caller, dumpDatabase, makeRoom, tempDir, type TestRoom } from '../helpers/room.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const HOLD_FIXTURE = fileURLToPath(new URL('../fixtures/hold-room-open.ts', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

interface Holder {
  child: ChildProcess;
  pid: number;
  handoffIds: string[];
  /** Resolves once the child has exited, been reaped and its stdio has closed. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

const children = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];

afterEach(async () => {
  await Promise.all(
    [...children].map(async (child) => {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((resolve) => child.once('close', resolve));
        child.kill('SIGKILL');
        await gone;
      }
    }),
  );
  children.clear();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A temporary artifact whose directory is removed after the test. */
function tempArtifact(): string {
  const dir = tempDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const artifact = path.join(dir, 'room.md');
  writeFileSync(artifact, '# Lock room\n');
  return artifact;
}

/** Opens a room and closes it after the test, whatever happens. */
function track<T extends { close(): void }>(opened: T): T {
  cleanups.push(() => opened.close());
  return opened;
}

/** A child process that holds the room open for writing, once it says ready. */
async function holdRoom(artifact: string, handoffs: number): Promise<Holder> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLD_FIXTURE, artifact, String(handoffs)], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  let stdout = '';
  child.stdout!.setEncoding('utf8');
  const ready = await new Promise<{ pid: number; handoff_ids: string[] }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ready line in ${READY_TIMEOUT_MS} ms; stderr:\n${stderr}`)),
      READY_TIMEOUT_MS,
    );
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.startsWith('ready '));
      if (line !== undefined && stdout.includes('\n')) {
        clearTimeout(timer);
        resolve(JSON.parse(line.slice('ready '.length)));
      }
    });
    void closed.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the holder exited before ready (code ${code}, signal ${signal}); stderr:\n${stderr}`));
    });
  });
  expect(ready.pid).toBe(child.pid);
  return { child, pid: ready.pid, handoffIds: ready.handoff_ids, closed, stderr: () => stderr };
}

/** The error a call throws, or a failure when it does not throw. */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

function expectLocked(error: unknown): DomainError {
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe('locked');
  return error as DomainError;
}

const sha256 = (file: string): string | null =>
  existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null;

/** The bytes of the database and its WAL: what a write would change. */
const sidecarBytes = (artifact: string): { db: string | null; wal: string | null } => ({
  db: sha256(sidecarPath(artifact)),
  wal: sha256(`${sidecarPath(artifact)}-wal`),
});

const dataVersion = (room: Room): number => room.store.db.pragma('data_version', { simple: true }) as number;

describe('writer lock across processes', () => {
  it(
    'refuses a second writer while another process holds the room, naming it, and writes nothing',
    { timeout: 120_000 },
    async () => {
      const artifact = tempArtifact();
      const holder = await holdRoom(artifact, 3);

      const reader = track(openRoom(artifact, { mode: 'read' }));
      const before = dumpDatabase(reader);
      const versionBefore = dataVersion(reader);
      const bytesBefore = sidecarBytes(artifact);
      expect(readLockHolder(reader.store.db)).toMatchObject({ pid: holder.pid, command: 'hold-fixture' });

      const error = expectLocked(thrown(() => openRoom(artifact, { command: 'intruder' })));
      expect(error.message).toMatch(new RegExp(`\\bprocess ${holder.pid}\\b`));
      expect(error.message).toContain('hold-fixture');
      expect(error.details).toEqual({ pid: holder.pid, command: 'hold-fixture' });

      // Nothing was written: no commit by any other connection, same rows, same bytes.
      expect(dataVersion(reader)).toBe(versionBefore);
      expect(dumpDatabase(reader)).toEqual(before);
      expect(sidecarBytes(artifact)).toEqual(bytesBefore);
      expect(readLockHolder(reader.store.db)).toMatchObject({ pid: holder.pid, command: 'hold-fixture' });

      // Refused again: the failed attempt did not disturb the lock.
      expectLocked(thrown(() => openRoom(artifact, { command: 'intruder' })));
      expect(holder.child.exitCode).toBeNull();
    },
  );

  it('frees the lock when the holder closes the room on SIGTERM', { timeout: 120_000 }, async () => {
    const artifact = tempArtifact();
    const holder = await holdRoom(artifact, 2);
    expectLocked(thrown(() => openRoom(artifact, { command: 'too-early' })));

    holder.child.kill('SIGTERM');
    expect(await holder.closed, holder.stderr()).toEqual({ code: 0, signal: null });

    // Closed normally: the lock row is gone, not just stale.
    const reader = openRoom(artifact, { mode: 'read' });
    try {
      expect(reader.store.db.prepare('SELECT * FROM writer_lock').all()).toEqual([]);
    } finally {
      reader.close();
    }

    const room = track(openRoom(artifact, { command: 'after-holder' }));
    expect(room.sidecar.writable).toBe(true);
    expect(readLockHolder(room.store.db)).toMatchObject({ pid: process.pid, command: 'after-holder' });
    // What the holder wrote is there, and this writer can change state.
    const listed = listHandoffs(room, LOCAL_OPERATOR, {}).handoffs.map((h) => h.handoff_id);
    expect(listed.sort()).toEqual([...holder.handoffIds].sort());
    const accepted = acceptHandoff(room, caller('bob'), { handoff_id: holder.handoffIds[0]! });
    expect(accepted.handoff.status).toBe('accepted');
  });

  it(
    'lets readers open alongside the writer, read handoffs, and refuses their state changes',
    { timeout: 120_000 },
    async () => {
      const artifact = tempArtifact();
      const holder = await holdRoom(artifact, 3);

      const reader = track(openRoom(artifact, { mode: 'read' }));
      expect(reader.sidecar.writable).toBe(false);
      const { handoffs, next_cursor } = listHandoffs(reader, LOCAL_OPERATOR, {});
      expect(next_cursor).toBeNull();
      expect(handoffs.map((h) => h.handoff_id).sort()).toEqual([...holder.handoffIds].sort());
      for (const handoff of handoffs) {
        expect(handoff).toMatchObject({ status: 'open', owner: 'alice', assignee: 'bob' });
        expect(handoff.summary).toMatch(/^held handoff \d$/);
      }
      // A second reader too.
      const second = track(openRoom(artifact, { mode: 'read' }));
      expect(listHandoffs(second, caller('carol'), {}).handoffs).toHaveLength(3);

      const before = dumpDatabase(reader);
      const versionBefore = dataVersion(reader);
      expectLocked(thrown(() => createHandoff(reader, caller('alice'), { summary: 'through a reader' })));
      expectLocked(thrown(() => addParticipant(reader, LOCAL_OPERATOR, { name: 'eve' })));
      expectLocked(thrown(() => acceptHandoff(reader, caller('bob'), { handoff_id: holder.handoffIds[0]! })));
      const taskId = handoffs[0]!.task_id;
      expectLocked(thrown(() => cancelTask(reader, caller('alice'), { task_id: taskId })));
      // Below the engine, the connection itself is read-only.
      expect(reader.store.db.readonly).toBe(true);
      expect(() =>
        reader.store.db.prepare("INSERT INTO participants (name, created_at) VALUES ('eve', 0)").run(),
      ).toThrow(/readonly/i);
      expect(dataVersion(reader)).toBe(versionBefore);
      expect(dumpDatabase(reader)).toEqual(before);
      expect(holder.child.exitCode).toBeNull();
    },
  );
});

describe('writer lock within one process', () => {
  it('refuses a second write-open of an open room until the first closes', () => {
    const test: TestRoom = makeRoom(['alice', 'bob']);
    cleanups.push(() => test.close());

    const before = dumpDatabase(test.room);
    const error = expectLocked(thrown(() => openRoom(test.artifact, { command: 'second' })));
    expect(error.message).toMatch(new RegExp(`\\bpid ${process.pid}\\b`));
    // Also by another spelling of the same path.
    const relative = path.relative(process.cwd(), test.artifact);
    expectLocked(thrown(() => openRoom(relative, { command: 'second' })));
    // And through a symlinked directory: the same sidecar, the same lock.
    const linked = path.join(tempDir(), 'linked');
    symlinkSync(path.dirname(test.artifact), linked);
    expectLocked(thrown(() => openRoom(path.join(linked, path.basename(test.artifact)), { command: 'second' })));
    expect(dumpDatabase(test.room)).toEqual(before);

    // The first room keeps its lock and still writes.
    expect(readLockHolder(test.room.store.db)).toMatchObject({ pid: process.pid, command: 'vitest' });
    const created = createHandoff(test.room, caller('alice'), { summary: 'still writing' });
    expect(created.handoff.status).toBe('open');

    test.room.close();
    const again = track(openRoom(test.artifact, { command: 'second' }));
    expect(readLockHolder(again.store.db)).toMatchObject({ pid: process.pid, command: 'second' });
    expect(listHandoffs(again, LOCAL_OPERATOR, {}).handoffs.map((h) => h.handoff_id)).toEqual([
      created.handoff.handoff_id,
    ]);
    expectLocked(thrown(() => openRoom(test.artifact, { command: 'third' })));
  });

  it('lets a reader in this process read while this process writes, but not write', () => {
    const test = makeRoom(['alice', 'bob']);
    cleanups.push(() => test.close());
    const created = createHandoff(test.room, caller('alice'), { summary: 'visible to readers', assignee: 'bob' });

    const reader = track(openRoom(test.artifact, { mode: 'read' }));
    expect(listHandoffs(reader, LOCAL_OPERATOR, {}).handoffs).toEqual([created.handoff]);
    expectLocked(thrown(() => createHandoff(reader, caller('alice'), { summary: 'through a reader' })));

    // The reader sees the writer's later commits.
    acceptHandoff(test.room, caller('bob'), { handoff_id: created.handoff.handoff_id });
    expect(listHandoffs(reader, LOCAL_OPERATOR, {}).handoffs[0]).toMatchObject({ status: 'accepted', assignee: 'bob' });
  });

  it('does not create a sidecar when opening for reading', () => {
    const artifact = tempArtifact();
    const error = thrown(() => openRoom(artifact, { mode: 'read' }));
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('not_found');
    expect(existsSync(sidecarPath(artifact))).toBe(false);
  });
});

describe('sidecar settings', () => {
  it('runs in WAL mode with full synchronous commits, foreign keys on, and every migration recorded once', () => {
    const test = makeRoom([]);
    cleanups.push(() => test.close());
    const db = test.room.store.db;
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual(
      migrations.map(({ version, name }) => ({ version, name })),
    );

    // Reopening migrates nothing again; WAL mode is stored in the file itself.
    test.room.close();
    const again = track(openRoom(test.artifact, { command: 'reopen' }));
    expect(again.store.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all()).toEqual(
      migrations.map(({ version }) => ({ version })),
    );
    expect(again.store.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(again.store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    const raw = new Database(sidecarPath(test.artifact), { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }
  });
});
