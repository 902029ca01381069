// Making a room's sidecar, over the built binary: a sidecar always keeps its
// owner's read and write, whatever the file's bits (a read-only file is
// still a room: an approval writes it by a rename, keeping its bits); a
// sidecar whose making fails is taken away again, never left half made for
// every later command to take for a room; and, run as a user who may not
// write there (when the tests run as root, as `nobody`), ce init says so
// and changes nothing.
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { sidecarPath } from '../../src/store/sidecar.js';
import { tempDir } from '../helpers/room.js';
import { ce, CE_BIN, failedWith, okJson, okPlain, type CeRun } from '../helpers/run-ce.js';

const SLOW = { timeout: 60_000 };
const bits = (file: string): string => (statSync(file).mode & 0o777).toString(8);

/** `notes.md` in a fresh folder, with `mode`. */
function markdownFile(mode = 0o644): string {
  const file = path.join(tempDir(), 'notes.md');
  writeFileSync(file, '# Notes\n');
  chmodSync(file, mode);
  return file;
}

test(
  'a read-only file is a room: its sidecar keeps its owner’s read and write, and an approval writes the file, keeping its bits',
  SLOW,
  async () => {
    const file = markdownFile(0o444);
    okPlain(await ce(['init', file]));
    expect(bits(sidecarPath(file))).toBe('644');
    okPlain(await ce(['participant', 'add', file, 'alice']));
    const draft = path.join(path.dirname(file), 'draft.md');
    writeFileSync(draft, '# Notes, approved\n');
    const made = okJson<{ proposal: { proposal_id: string } }>(
      await ce([
        'propose',
        file,
        '--participant',
        'alice',
        '--base',
        '1',
        '--content-file',
        draft,
        '--summary',
        'A title',
        '--json',
      ]),
    );
    okPlain(await ce(['proposal-approve', file, made.proposal.proposal_id, '--participant', 'alice']));
    expect(readFileSync(file, 'utf8')).toBe('# Notes, approved\n');
    expect(bits(file)).toBe('444');
    expect(bits(sidecarPath(file))).toBe('644');
  },
);

test(
  'a sidecar whose making fails is taken away: nothing is left that a later command would take for a room',
  SLOW,
  async () => {
    const file = markdownFile();
    // SQLite cannot make the sidecar's write-ahead log where a folder stands: the making fails after the sidecar exists.
    const wal = `${sidecarPath(file)}-wal`;
    mkdirSync(wal);
    failedWith(await ce(['init', file]), 1, /the disk failed to write the sidecar/);
    expect(readdirSync(path.dirname(file)).sort()).toEqual(['notes.md', 'notes.md.commonroom.db-wal']);
    failedWith(await ce(['status', file]), 1, /does not exist; make it a room first: ce init /);
    // The folder in the way taken away, ce init makes the room: nothing half made stood in its way.
    rmdirSync(wal);
    expect(okPlain(await ce(['init', file]))).toMatch(/^notes\.md is now a room\n/);
  },
);

/** `ce` run as the user `uid` (and its group), as a person without root would run it. */
const ceAs = (uid: number, args: string[]): Promise<CeRun> =>
  new Promise((resolve) => {
    execFile(process.execPath, [CE_BIN, ...args], { uid, gid: uid, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });

const NOBODY = 65_534;

/** A markdown file of nobody's, in a folder of nobody's. */
function nobodysFile(mode = 0o644): string {
  const file = markdownFile(mode);
  chownSync(path.dirname(file), NOBODY, NOBODY);
  chownSync(file, NOBODY, NOBODY);
  return file;
}

test.runIf(process.getuid?.() === 0)(
  'as a user who may not write there: ce init says what is not writable, and changes nothing',
  SLOW,
  async () => {
    // A read-only file of nobody's, in nobody's folder: a room, as for root.
    const own = nobodysFile(0o444);
    expect(okPlain(await ceAs(NOBODY, ['init', own]))).toMatch(/^notes\.md is now a room\n/);
    expect(bits(sidecarPath(own))).toBe('644');

    // A folder nobody may not write in: nothing is made.
    const elsewhere = markdownFile(0o644);
    chmodSync(path.dirname(elsewhere), 0o755);
    failedWith(
      await ceAs(NOBODY, ['init', elsewhere]),
      1,
      /^ce: cannot make the sidecar .*notes\.md\.commonroom\.db: this user may not write in .* \(EACCES\), where a room keeps its sidecar and writes its file; nothing was made\n$/,
    );
    expect(readdirSync(path.dirname(elsewhere))).toEqual(['notes.md']);

    // A sidecar left read-only (as an older ce left one): named, with what to do; it stays as it was.
    const stuck = nobodysFile(0o644);
    writeFileSync(sidecarPath(stuck), '');
    chownSync(sidecarPath(stuck), NOBODY, NOBODY);
    chmodSync(sidecarPath(stuck), 0o444);
    failedWith(
      await ceAs(NOBODY, ['init', stuck]),
      1,
      /^ce: the sidecar .*notes\.md\.commonroom\.db is not writable by this user \(mode 444\), and the room writes there at every change; give this user write access \(e\.g\. chmod u\+w .*\) and try again; nothing was written\n$/,
    );
    expect(readdirSync(path.dirname(stuck)).sort()).toEqual(['notes.md', 'notes.md.commonroom.db']);
    expect(statSync(sidecarPath(stuck)).size).toBe(0);
  },
);

test.runIf(process.getuid?.() === 0)(
  'a sidecar another user owns, or a log a read-only sidecar left read-only: named, with the fix that works',
  SLOW,
  async () => {
    // Made by root (as `ce init` run by hand before the service's user serves it): chmod cannot help; chown can.
    const roots = nobodysFile(0o644);
    okJson(await ce(['init', roots, '--json']));
    failedWith(
      await ceAs(NOBODY, ['participant', 'add', roots, 'alice']),
      1,
      /^ce: the sidecar .*notes\.md\.commonroom\.db is not writable by this user \(mode 644, owned by uid 0; this user is uid 65534\), and the room writes there at every change; run ce as the user it belongs to, or give it to this one \(e\.g\. chown 65534 .*\) and try again; nothing was written\n$/,
    );

    // nobody's room, its sidecar made read-only: a read leaves the -wal and -shm read-only, as SQLite makes
    // them with the sidecar's mode. Once the sidecar is writable again, the one left read-only is named.
    const own = nobodysFile(0o644);
    okPlain(await ceAs(NOBODY, ['init', own]));
    chmodSync(sidecarPath(own), 0o444);
    await ceAs(NOBODY, ['status', own]);
    expect(bits(`${sidecarPath(own)}-wal`)).toBe('444');
    chmodSync(sidecarPath(own), 0o644);
    failedWith(
      await ceAs(NOBODY, ['participant', 'add', own, 'alice']),
      1,
      /^ce: its (log|shared-memory file) .*notes\.md\.commonroom\.db-(wal|shm) is not writable by this user \(mode 444\), and the room writes there at every change; give this user write access \(e\.g\. chmod u\+w .*-(wal|shm)\) and try again; nothing was written\n$/,
    );
  },
);

test(
  'ce init run several times at once on a new file: one makes the room; the others find it, or are told another ce writes it',
  SLOW,
  async () => {
    for (let round = 0; round < 3; round++) {
      const file = markdownFile();
      const runs = await Promise.all(Array.from({ length: 4 }, () => ce(['init', file, '--json'])));
      const made = runs.filter((run) => run.code === 0 && JSON.parse(run.stdout).already_room === false);
      expect(made).toHaveLength(1);
      for (const run of runs) {
        if (run.code === 0) continue;
        expect(run.code, run.stderr).toBe(1);
        expect(JSON.parse(run.stderr).error).toMatchObject({ code: 'locked', details: { command: 'ce init' } });
      }
      const status = okJson<{ room: { revision: { number: number } } }>(await ce(['status', file, '--json']));
      expect(status.room.revision.number).toBe(1);
    }
  },
);

/** `ce ARGS` run by a shell with `umask 077`, as a service with UMask=0077 runs it. */
const underUmask077 = (args: string[]): Promise<CeRun> =>
  new Promise((resolve) => {
    const command = `umask 077 && exec "${process.execPath}" "${CE_BIN}" ${args.map((a) => `'${a}'`).join(' ')}`;
    execFile('sh', ['-c', command], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

test('under UMask=0077 the sidecar and a backup stay their owner’s, whatever the file’s bits', SLOW, async () => {
  const file = markdownFile(0o644);
  okJson(await underUmask077(['init', file, '--json']));
  expect(bits(file)).toBe('644');
  expect(bits(sidecarPath(file))).toBe('600');
  const dest = path.join(tempDir(), 'copy.md');
  okJson(await underUmask077(['backup', file, dest, '--json']));
  expect(bits(dest)).toBe('600');
  expect(bits(sidecarPath(dest))).toBe('600');
  // Without it, the file's own bits, as before.
  const open = markdownFile(0o644);
  okJson(await ce(['init', open, '--json']));
  expect(bits(sidecarPath(open))).toBe('644');
});

test(
  'the sidecar or a folder given for the room’s file: said which file to give, and nothing is made',
  SLOW,
  async () => {
    const file = markdownFile();
    okPlain(await ce(['init', file]));
    const dir = path.dirname(file);
    const before = readdirSync(dir).sort();
    for (const command of ['init', 'serve', 'status', 'handoffs']) {
      failedWith(
        await ce([command, sidecarPath(file)]),
        1,
        new RegExp(
          `^ce: \\S+notes\\.md\\.commonroom\\.db is a room's sidecar, not its file: give the room's markdown file, \\S+notes\\.md$`,
          'm',
        ),
      );
      failedWith(await ce([command, dir]), 1, /^ce: \S+ is a folder: give the room's markdown file$/m);
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  },
);
