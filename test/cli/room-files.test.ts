// The files the room writes beside the artifact, as an attacker on the same
// machine would look at them: the runtime file (the operator's token) is
// owner-only, never written through a link planted at its path, refused to a
// second room and gone after a stop; the artifact keeps its permission bits
// through an approval, and the sidecar, its -wal and -shm, a backup and a
// restore never have bits the artifact lacks. A restore cut short after its
// point of no return is finished by the next writer, never taken for an edit.
// A room killed outright leaves its runtime file; the next ce removes it.
// One a power cut left empty or torn is taken for no room at all.
import { chmodSync, existsSync, lstatSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { addParticipant, createSession, LOCAL_OPERATOR, openRoom, syncArtifact } from '../helpers/engine.js';
import { runtimeFilePath } from '../../src/http/runtime-file.js';
import { hashBytes } from '../../src/store/artifact-file.js';
import { restoreRoom } from '../../src/store/backup.js';
import { sidecarPath } from '../../src/store/sidecar.js';
import { ceServe } from '../helpers/ce-serve.js';
import { approveAnEdit } from '../helpers/rest-edit.js';
import { tempDir } from '../helpers/room.js';
import { ce, failedWith, okJson } from '../helpers/run-ce.js';

const SLOW = { timeout: 120_000 };
const bits = (file: string): number => statSync(file).mode & 0o777;
const octal = (mode: number): string => mode.toString(8).padStart(3, '0');

/** A markdown file with `mode`, made a room with alice (read, write, approve); her token. */
function prepareRoom(mode: number): { file: string; token: string } {
  const file = path.join(tempDir(), 'notes.md');
  writeFileSync(file, '# Notes\n\nFirst line.\n');
  chmodSync(file, mode);
  const room = openRoom(file, { command: 'vitest' });
  try {
    syncArtifact(room);
    addParticipant(room, LOCAL_OPERATOR, { name: 'alice' });
    const { token } = createSession(room, LOCAL_OPERATOR, {
      participant: 'alice',
      capabilities: ['read', 'write', 'approve'],
    });
    return { file, token };
  } finally {
    room.close();
  }
}

test.each([0o600, 0o640])(
  'a %s artifact keeps its bits through an approval; the sidecar and its -wal and -shm have no more',
  SLOW,
  async (mode) => {
    const { file, token } = prepareRoom(mode);
    const served = await ceServe(file);
    onTestFinished(served.kill);
    await approveAnEdit(served.restUrl, token, '# Notes\n\nSecond line.\n');
    expect(readFileSync(file, 'utf8')).toBe('# Notes\n\nSecond line.\n');
    const sidecar = sidecarPath(file);
    expect(octal(bits(file))).toBe(octal(mode));
    for (const part of [sidecar, `${sidecar}-wal`, `${sidecar}-shm`]) {
      expect(existsSync(part), part).toBe(true);
      expect(octal(bits(part)), part).toBe(octal(mode));
    }
    // The runtime file holds the operator's token: owner-only whatever the artifact's bits.
    expect(octal(bits(runtimeFilePath(file)))).toBe('600');
    expect(await served.stop()).toBe(0);
    expect(existsSync(runtimeFilePath(file))).toBe(false);
  },
);

test('a sidecar wider than its artifact is narrowed when a writer opens it; never widened', SLOW, async () => {
  const { file } = prepareRoom(0o600);
  chmodSync(sidecarPath(file), 0o644);
  okJson(await ce(['participant', 'add', file, 'bob', '--json']));
  expect(octal(bits(sidecarPath(file)))).toBe('600');
  chmodSync(file, 0o644);
  chmodSync(sidecarPath(file), 0o600);
  okJson(await ce(['participant', 'add', file, 'carol', '--json']));
  expect(octal(bits(sidecarPath(file)))).toBe('600');
});

test('a symbolic link planted at the runtime file’s path: ce serve refuses and the link’s target is untouched', SLOW, async () => {
  const { file } = prepareRoom(0o600);
  const target = path.join(path.dirname(file), 'collected.txt');
  writeFileSync(target, 'nothing to see\n');
  symlinkSync(target, runtimeFilePath(file));
  const run = await ce(['serve', file, '--port', '0']);
  failedWith(
    run,
    1,
    new RegExp(
      `^ce: ${runtimeFilePath(file).replaceAll('.', '\\.')} is a symbolic link \\(to ${target.replaceAll('.', '\\.')}\\): the room writes its operator token there and never through a link; remove it and start again$`,
      'm',
    ),
  );
  expect(readFileSync(target, 'utf8')).toBe('nothing to see\n');
  expect(lstatSync(runtimeFilePath(file)).isSymbolicLink()).toBe(true);
  expect(readlinkSync(runtimeFilePath(file))).toBe(target);
  // Nothing else serves: the writer's lock went with the refused process.
  okJson(await ce(['participant', 'add', file, 'bob', '--json']));
});

test('a stale runtime file (its process gone) is replaced; one whose process lives is refused', SLOW, async () => {
  const { file } = prepareRoom(0o600);
  const record = (pid: number) =>
    JSON.stringify({
      pid,
      process_start: null,
      base_url: 'http://127.0.0.1:1',
      mcp_url: 'http://127.0.0.1:1/mcp',
      rest_url: 'http://127.0.0.1:1/workspace',
      operator_token: 'op_stale',
      started_at: '2026-01-01T00:00:00.000Z',
    });
  // A pid no process has (the kernel's highest is far below).
  writeFileSync(runtimeFilePath(file), record(2 ** 22 + 12_345), { mode: 0o644 });
  const served = await ceServe(file);
  onTestFinished(served.kill);
  const info = JSON.parse(readFileSync(runtimeFilePath(file), 'utf8')) as { pid: number; operator_token: string };
  expect(info.pid).toBe(served.pid);
  expect(info.operator_token).not.toBe('op_stale');
  expect(octal(bits(runtimeFilePath(file)))).toBe('600');
  expect(await served.stop()).toBe(0);

  // A process that lives (this test's own) named in it: refused, and the file left as it was.
  writeFileSync(runtimeFilePath(file), record(process.pid));
  failedWith(
    await ce(['serve', file, '--port', '0']),
    1,
    new RegExp(`belongs to room process ${process.pid}, which still runs \\(http://127\\.0\\.0\\.1:1\\); stop it first`),
  );
  expect(JSON.parse(readFileSync(runtimeFilePath(file), 'utf8')).pid).toBe(process.pid);
});

test('a runtime file a power cut left empty or torn (it is not fsynced) is read as no room running and replaced', SLOW, async () => {
  const { file } = prepareRoom(0o600);
  for (const left of ['', '{"pid": 4194304, "base_url": "http://127.0.0.1:1"']) {
    writeFileSync(runtimeFilePath(file), left, { mode: 0o600 });
    // Not taken for a running room: ce works on the file itself.
    expect(okJson<{ handoffs: unknown[] }>(await ce(['handoffs', file, '--json'])).handoffs).toEqual([]);
    const served = await ceServe(file);
    onTestFinished(served.kill);
    expect(JSON.parse(readFileSync(runtimeFilePath(file), 'utf8')).pid).toBe(served.pid);
    expect(await served.stop()).toBe(0);
    expect(existsSync(runtimeFilePath(file))).toBe(false);
  }
});

test('a room killed with SIGKILL leaves its runtime file: the next ce command removes it and works on the file', SLOW, async () => {
  const { file } = prepareRoom(0o600);
  const served = await ceServe(file);
  expect(existsSync(runtimeFilePath(file))).toBe(true);
  served.kill();
  expect(await served.exited).toBe(null);
  expect(existsSync(runtimeFilePath(file))).toBe(true);
  // Its process is gone: the file is removed, and no request goes to the dead address.
  expect(okJson<{ handoffs: unknown[] }>(await ce(['handoffs', file, '--json'])).handoffs).toEqual([]);
  expect(existsSync(runtimeFilePath(file))).toBe(false);
});

test('ce backup gives its files the bits of the artifact it copies; ce restore keeps those of the room it restores', SLOW, async () => {
  const { file } = prepareRoom(0o640);
  const dest = path.join(tempDir(), 'copy.md');
  okJson(await ce(['backup', file, dest, '--json']));
  expect(octal(bits(dest))).toBe('640');
  expect(octal(bits(sidecarPath(dest)))).toBe('640');
  chmodSync(dest, 0o644);
  chmodSync(file, 0o600);
  const restored = okJson<{ kept: string[] }>(await ce(['restore', dest, file, '--json']));
  expect(octal(bits(file))).toBe('600');
  expect(octal(bits(sidecarPath(file)))).toBe('600');
  // What was there is kept with the bits it had (its sidecar narrowed to its file's when ce restore opened it).
  expect(restored.kept.map((kept) => octal(bits(kept)))).toEqual(['600', '600']);
});

test('a restore cut short after the sidecar went back: the next writer writes the file from it, not an edit', SLOW, async () => {
  const { file, token } = prepareRoom(0o600);
  const served = await ceServe(file);
  onTestFinished(served.kill);
  await approveAnEdit(served.restUrl, token, '# Notes\n\nIn the backup.\n');
  const dest = path.join(tempDir(), 'copy.md');
  okJson(await ce(['backup', file, dest, '--json']));
  await approveAnEdit(served.restUrl, token, '# Notes\n\nAfter the backup.\n');
  expect(await served.stop()).toBe(0);

  // The restore's steps up to its point of no return, as a crash right after it would leave them.
  await restoreRoom({ artifact: dest }, file, '.kept', Date.now());
  expect(readFileSync(file, 'utf8')).toBe('# Notes\n\nAfter the backup.\n');
  const reader = openRoom(file, { mode: 'read' });
  try {
    expect(reader.workspace.getFileRewrite()).toMatchObject({ revision: 2 });
  } finally {
    reader.close();
  }

  // The next writer (here ce serve) finishes it: the file is the restored revision, recorded as such.
  const again = await ceServe(file);
  onTestFinished(again.kill);
  expect(readFileSync(file, 'utf8')).toBe('# Notes\n\nIn the backup.\n');
  const headers = { authorization: `Bearer ${token}` };
  const artifact = (await (await fetch(`${again.restUrl}/artifact`, { headers })).json()) as {
    revision: { number: number; hash: string };
    unrecorded_edit: boolean;
  };
  expect(artifact.revision.number).toBe(2);
  expect(artifact.unrecorded_edit).toBe(false);
  expect(hashBytes(readFileSync(file))).toBe(artifact.revision.hash);
  expect(await again.stop()).toBe(0);
  const settled = openRoom(file, { mode: 'read' });
  try {
    expect(settled.workspace.getFileRewrite()).toBeUndefined();
    const events = settled.store.db.prepare("SELECT type, payload_json FROM events WHERE type LIKE 'artifact.%'").all();
    expect(events).toEqual([
      {
        type: 'artifact.restored',
        payload_json: JSON.stringify({ revision: 2, hash: artifact.revision.hash, reason: `restored from ${dest}` }),
      },
    ]);
  } finally {
    settled.close();
  }
  // What was there before the restore is kept, whole.
  expect(readFileSync(`${file}.kept`, 'utf8')).toBe('# Notes\n\nAfter the backup.\n');
});
