// A state-changing ce command while a room process holds the room: refused
// in one line that says a room process is running, and nothing is written.
// Reading commands still read.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import type { HandoffListOutput } from '../../generated/types.js';
import { openRoom } from '../helpers/engine.js';
import { ce, failedWith, failedWithJson, okJson } from '../helpers/run-ce.js';
import { dumpDatabase, tempDir } from '../helpers/room.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const HOLD_FIXTURE = fileURLToPath(new URL('../fixtures/hold-room-open.ts', import.meta.url));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Spawns the fixture that holds the room open for writing and waits for its ready line. */
async function holdRoom(artifact: string, handoffs: number): Promise<{ pid: number; handoffIds: string[] }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', HOLD_FIXTURE, artifact, String(handoffs)], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await closed;
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout!.setEncoding('utf8');
  const ready = await new Promise<{ pid: number; handoff_ids: string[] }>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.startsWith('ready ') && stdout.includes(`${l}\n`));
      if (line) resolve(JSON.parse(line.slice('ready '.length)));
    });
    void closed.then(() => reject(new Error(`the holder exited before ready; stderr:\n${stderr}`)));
  });
  return { pid: ready.pid, handoffIds: ready.handoff_ids };
}

const sha256 = (file: string): string | null =>
  existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null;

/** Every table's rows and the bytes of the database and its WAL. */
function snapshot(artifact: string): unknown {
  const reader = openRoom(artifact, { mode: 'read' });
  try {
    const sidecar = reader.sidecar.path;
    return { tables: dumpDatabase(reader), db: sha256(sidecar), wal: sha256(`${sidecar}-wal`) };
  } finally {
    reader.close();
  }
}

describe('a state-changing command while a room process runs', () => {
  test(
    'is refused in one line naming the process, writes nothing, and readers still read',
    { timeout: 120_000 },
    async () => {
      const dir = tempDir();
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const artifact = path.join(dir, 'room.md');
      writeFileSync(artifact, '# Held room\n');
      const holder = await holdRoom(artifact, 2);
      const before = snapshot(artifact);

      const [add, session, cancel, init, handoffs] = await Promise.all([
        ce(['participant', 'add', artifact, 'carol']),
        ce(['session', 'create', artifact, '--participant', 'alice', '--caps', 'read', '--json']),
        ce(['task-cancel', artifact, 'tk_any', '--participant', 'alice']),
        ce(['init', artifact]),
        ce(['handoffs', artifact, '--json']),
      ]);

      const refusal = new RegExp(
        `^ce: a room process is running for ${artifact.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ` +
          `the sidecar is already written by process ${holder.pid} \\(hold-fixture\\) .*; nothing was written$`,
        'm',
      );
      failedWith(add, 1, refusal);
      const error = failedWithJson(session, 'locked', /^a room process is running for .*; nothing was written$/);
      expect(error).toMatchObject({ details: { pid: holder.pid, command: 'hold-fixture' } });

      const listed = okJson<HandoffListOutput>(handoffs).handoffs.map((h) => h.handoff_id);
      expect(listed.sort()).toEqual([...holder.handoffIds].sort());

      expect(snapshot(artifact)).toEqual(before);
    },
  );
});

test('a copy of a held room (cp of its files) is a room of its own: its lock came with the copy, and is taken', async () => {
  const dir = tempDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const artifact = path.join(dir, 'room.md');
  writeFileSync(artifact, '# Held room\n');
  const holder = await holdRoom(artifact, 1);
  const copied = path.join(tempDir(), 'room.md');
  for (const suffix of ['', '.commonroom.db', '.commonroom.db-wal']) {
    if (existsSync(`${artifact}${suffix}`)) copyFileSync(`${artifact}${suffix}`, `${copied}${suffix}`);
  }
  expect(okJson(await ce(['participant', 'add', copied, 'carol', '--json']))).toMatchObject({
    participant: { name: 'carol' },
  });
  // The original is still held by its process.
  failedWith(
    await ce(['participant', 'add', artifact, 'carol']),
    1,
    new RegExp(`already written by process ${holder.pid} \\(hold-fixture\\)`),
  );
});
