// ce init, ce participant, ce session, --help and usage errors, through the
// real binary. Rooms are prepared with the engine in this process and closed
// before ce runs. Each test has rooms of its own, so the tests run at once:
// every ce call is a node + tsx start, and vitest gives a 2-core machine one
// worker.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import type { Participant, Session, SessionCreateOutput } from '../../generated/types.js';
import { addParticipant, LOCAL_OPERATOR, openRoom, syncArtifact } from '../helpers/engine.js';
import { ce, failedWith, failedWithJson, okJson, okPlain } from '../helpers/run-ce.js';
import { tempDir } from '../helpers/room.js';

const SLOW = { timeout: 120_000 };
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function markdownFile(text = '# Notes\n'): string {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'room.md');
  writeFileSync(file, text);
  return file;
}

/** A room made with the engine, closed again before ce runs. */
function roomFile(participants: string[]): string {
  const file = markdownFile();
  const room = openRoom(file, { command: 'vitest' });
  try {
    syncArtifact(room);
    for (const name of participants) addParticipant(room, LOCAL_OPERATOR, { name });
  } finally {
    room.close();
  }
  return file;
}

const sidecarOf = (file: string): string => `${file}.commonroom.db`;

function readSessions(file: string): Record<string, unknown>[] {
  const db = new Database(sidecarOf(file), { readonly: true });
  try {
    return db.prepare('SELECT * FROM sessions ORDER BY created_at, id').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

describe.concurrent('ce init', () => {
  test('makes a room of an existing file, says so when run again, and refuses a missing file', SLOW, async () => {
    const file = markdownFile();
    const missing = path.join(path.dirname(file), 'missing.md');
    const [first, refused] = await Promise.all([ce(['init', file]), ce(['init', missing])]);

    const plain = okPlain(first);
    expect(plain).toMatch(/^room\.md is now a room$/m);
    expect(plain).toMatch(/^file: +.*room\.md$/m);
    expect(plain).toMatch(/^revision: +1$/m);
    expect(plain).toContain(`sidecar:  ${sidecarOf(file)}\n`);
    expect(existsSync(sidecarOf(file))).toBe(true);

    failedWith(refused, 1, /missing\.md does not exist/);
    expect(existsSync(sidecarOf(missing))).toBe(false);

    const again = okJson(await ce(['init', file, '--json']));
    expect(again).toMatchObject({
      artifact: file,
      sidecar: sidecarOf(file),
      already_room: true,
      revision: { number: 1, source: 'initial' },
      recorded: null,
    });

    writeFileSync(file, '# Notes\n\nEdited outside the room.\n');
    const edited = okPlain(await ce(['init', file]));
    expect(edited).toMatch(/^room\.md already is a room; recorded an outside edit as revision 2$/m);
    expect(edited).toMatch(/^revision: +2$/m);
  });

  test('refuses a file that is not UTF-8 text, writing no sidecar; ce serve too', SLOW, async () => {
    const file = markdownFile();
    const latin1 = Buffer.from('# Caf\xe9\n', 'latin1');
    writeFileSync(file, latin1);
    const [init, serve] = await Promise.all([ce(['init', file]), ce(['serve', file, '--port', '0'])]);
    const notText = new RegExp(
      `^ce: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not UTF-8 text \\(byte 0xE9 at offset 5 is not valid UTF-8\\); a room's file must be UTF-8 text`,
    );
    failedWith(init, 1, notText);
    failedWith(serve, 1, notText);
    expect(existsSync(sidecarOf(file))).toBe(false);
    expect(readFileSync(file)).toEqual(latin1);

    // A room whose file an editor saved as Latin-1 keeps the bytes as an outside edit.
    writeFileSync(file, '# Café\n');
    okPlain(await ce(['init', file]));
    writeFileSync(file, latin1);
    const edited = okPlain(await ce(['init', file]));
    expect(edited).toMatch(
      /^room\.md already is a room; recorded an outside edit as revision 2 \(not UTF-8 text: it cannot be read or changed as text until it is saved as UTF-8 again\)$/m,
    );
    expect(readFileSync(file)).toEqual(latin1);
  });
});

describe.concurrent('ce participant', () => {
  test('add, remove, and list current or all', SLOW, async () => {
    const file = roomFile([]);
    expect(okPlain(await ce(['participant', 'add', file, 'alice']))).toBe('added participant alice\n');
    const bob = okJson<{ participant: Participant }>(await ce(['participant', 'add', file, 'bob', '--json']));
    expect(bob.participant).toMatchObject({ name: 'bob', removed_at: null });
    failedWith(
      await ce(['participant', 'add', file, 'alice']),
      1,
      /^ce: alice is already a participant of this room$/m,
    );
    expect(okPlain(await ce(['participant', 'remove', file, 'bob']))).toMatch(/^removed participant bob/);

    const [current, all] = await Promise.all([
      ce(['participant', 'list', file]),
      ce(['participant', 'list', file, '--all', '--json']),
    ]);
    const lines = okPlain(current).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^NAME +ADDED +REMOVED$/);
    expect(lines[1]).toMatch(/^alice +\d{4}-\S+Z +-$/);
    const listed = okJson<{ participants: Participant[] }>(all).participants;
    expect(listed.map((p) => [p.name, p.removed_at === null])).toEqual([
      ['alice', true],
      ['bob', false],
    ]);
  });
});

describe.concurrent('ce session', () => {
  test('create prints the token once, list never shows it, and the sidecar keeps only its hash', SLOW, async () => {
    const file = roomFile(['alice', 'bob']);

    const created = okPlain(await ce(['session', 'create', file, '--participant', 'alice', '--caps', 'read,write']));
    const token = /^token: (cr_\S+)$/m.exec(created)?.[1];
    const sessionId = /^session: +(se_\S+)$/m.exec(created)?.[1];
    expect(token, created).toBeDefined();
    expect(sessionId, created).toBeDefined();
    expect(created).toMatch(/^participant: +alice$/m);
    expect(created).toMatch(/^capabilities: +read,write$/m);
    expect(created).toMatch(/^expires: +never/m);
    expect(created).toMatch(/shown only this once/);

    const json = okJson<SessionCreateOutput>(
      await ce(['session', 'create', file, '--participant', 'bob', '--caps', 'read', '--expires-in', '15m', '--json']),
    );
    expect(json.session).toMatchObject({ participant: 'bob', capabilities: ['read'], revoked_at: null });
    expect(Date.parse(json.session.expires_at!) - Date.parse(json.session.created_at)).toBe(15 * 60 * 1000);
    expect(json.token).toMatch(/^cr_/);

    expect(okPlain(await ce(['session', 'revoke', file, sessionId!]))).toBe(`revoked session ${sessionId} of alice\n`);

    const [listed, bobs] = await Promise.all([
      ce(['session', 'list', file]),
      ce(['session', 'list', file, '--participant', 'bob', '--json']),
    ]);
    const plain = okPlain(listed);
    expect(plain).toMatch(/^SESSION +PARTICIPANT +CAPABILITIES +CREATED +EXPIRES +REVOKED$/m);
    expect(plain).toMatch(new RegExp(`^${sessionId} +alice +read,write +\\S+ +- +\\d{4}-\\S+Z$`, 'm'));
    expect(plain).toMatch(new RegExp(`^${json.session.session_id} +bob +read +\\S+ +\\d{4}-\\S+Z +-$`, 'm'));
    const sessions = okJson<{ sessions: Session[] }>(bobs).sessions;
    expect(sessions).toEqual([json.session]);
    for (const output of [plain, bobs.stdout]) {
      expect(output).not.toContain(token);
      expect(output).not.toContain(json.token);
      expect(output).not.toContain('cr_');
    }

    // The sidecar: each row holds sha256(token), and no token is anywhere in its files.
    const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
    const rows = readSessions(file);
    expect(rows.map((row) => [row.id, row.token_hash, row.revoked_at !== null])).toEqual([
      [sessionId, sha256(token!), true],
      [json.session.session_id, sha256(json.token), false],
    ]);
    for (const secret of [token!, json.token]) {
      expect(JSON.stringify(rows)).not.toContain(secret);
      for (const suffix of ['', '-wal', '-shm']) {
        const bytes = sidecarOf(file) + suffix;
        if (existsSync(bytes)) expect(readFileSync(bytes).includes(Buffer.from(secret))).toBe(false);
      }
    }
  });
});

describe.concurrent('usage errors and refusals', () => {
  test('answer with exit code 2 (usage) or 1 (refused) and one line, and change nothing', SLOW, async () => {
    // A refused write still takes the writer's lock for its moment: each
    // state-changing command here has a room of its own so they can run at once.
    const [file, second] = [roomFile(['alice']), roomFile(['alice'])];
    const notARoom = markdownFile();
    const corrupt = markdownFile();
    writeFileSync(sidecarOf(corrupt), 'this is not a SQLite database, not even close. '.repeat(200));
    // Another program's database where the sidecar goes: neither read nor written, not even its journal mode.
    const foreign = markdownFile();
    const other = new Database(sidecarOf(foreign));
    other.exec('CREATE TABLE notes (x)');
    other.close();
    const foreignBytes = readFileSync(sidecarOf(foreign));

    const [
      missingFile,
      idOnly,
      fileOnly,
      nothing,
      urlOnly,
      unknownOption,
      limit,
      caps,
      expiresIn,
      expiresNow,
      zed,
      noRoom,
      broken,
      brokenInit,
      foreignRead,
      foreignWrite,
    ] = await Promise.all([
      ce(['handoffs']),
      ce(['handoff', 'ho_nothing']),
      ce(['handoff', file]),
      ce(['handoff']),
      ce(['handoff', '--url', 'http://127.0.0.1:9']),
      ce(['handoffs', file, '--lmit', '5']),
      ce(['history', file, '--limit', 'abc', '--json']),
      ce(['session', 'create', file, '--participant', 'alice', '--caps', 'read,fly']),
      ce(['session', 'create', file, '--participant', 'alice', '--caps', 'read', '--expires-in', 'soon']),
      ce(['session', 'create', file, '--participant', 'alice', '--caps', 'read', '--expires-in', '0']),
      ce(['session', 'create', second, '--participant', 'zed', '--caps', 'read']),
      ce(['participant', 'add', notARoom, 'alice']),
      ce(['participant', 'list', corrupt]),
      ce(['init', corrupt]),
      ce(['handoffs', foreign]),
      ce(['participant', 'add', foreign, 'alice']),
    ]);

    failedWith(missingFile, 2, /^ce: missing required argument 'file' \(or --url, or CE_URL\)$/m);
    // The one word given is FILE when it names a file, else the id; with --url the words are the arguments.
    failedWith(idOnly, 2, /^ce: missing required argument 'file' \(or --url, or CE_URL\)$/m);
    failedWith(fileOnly, 2, /^ce: missing required argument 'handoff_id'$/m);
    failedWith(nothing, 2, /^ce: missing required argument 'file' \(or --url, or CE_URL\)$/m);
    failedWith(urlOnly, 2, /^ce: missing required argument 'handoff_id'$/m);
    failedWith(unknownOption, 2, /^ce: unknown option '--lmit' \(Did you mean --limit\?\)$/m);
    expect({ code: limit.code, stdout: limit.stdout }).toEqual({ code: 2, stdout: '' });
    expect(JSON.parse(limit.stderr)).toEqual({
      error: { code: 'usage', message: '--limit must be a whole number (got "abc")' },
    });
    failedWith(caps, 2, /^ce: --caps: unknown capability "fly" \(read, write, approve, admin\)$/m);
    failedWith(
      expiresIn,
      2,
      /^ce: --expires-in must be a whole number of seconds, or N with s, m, h or d \(15m, 12h, 30d\) \(got "soon"\)$/m,
    );
    // The room's refusal names the flag that gave the field (expires_in_seconds).
    failedWith(expiresNow, 1, /^ce: --expires-in must be >= 1$/m);
    failedWith(zed, 1, /^ce: zed is not a participant of this room$/m);
    failedWith(noRoom, 1, /^ce: no room for .*; make it a room first: ce init /m);
    const notOurs = (why: string) =>
      new RegExp(
        `^ce: .*\\.commonroom\\.db is not a Common Room sidecar: ${why}\\. Nothing was written to it; move it aside, since a room keeps its sidecar at that path$`,
        'm',
      );
    failedWith(broken, 1, notOurs('it is not a SQLite database'));
    failedWith(brokenInit, 1, notOurs('it is not a SQLite database'));
    failedWith(foreignRead, 1, notOurs('it is a SQLite database with tables of its own \\(notes\\)'));
    failedWith(foreignWrite, 1, notOurs('it is a SQLite database with tables of its own \\(notes\\)'));
    expect(readFileSync(sidecarOf(foreign)).equals(foreignBytes)).toBe(true);
    expect(existsSync(`${sidecarOf(foreign)}-wal`)).toBe(false);

    for (const room of [file, second]) expect(readSessions(room)).toEqual([]);
    expect(existsSync(sidecarOf(notARoom))).toBe(false);
  });
});

describe.concurrent('--help', () => {
  test('lists the commands, and each command its arguments and options', SLOW, async () => {
    const [top, create, task] = await Promise.all([
      ce(['--help']),
      ce(['session', 'create', '--help']),
      ce(['task', '--help']),
    ]);
    const commands = okPlain(top);
    for (const name of [
      'init',
      'participant',
      'session',
      'handoffs',
      'handoff ',
      'handoff-events',
      'task ',
      'task-cancel',
      'proposals',
      'history',
    ]) {
      expect(commands).toContain(`\n  ${name}`);
    }
    const createHelp = okPlain(create);
    expect(createHelp).toMatch(/^Usage: ce session create \(<file> \| --url <url>\) \[options\]$/m);
    for (const option of ['--participant <name>', '--caps <capabilities>', '--expires-in <duration>', '--json']) {
      expect(createHelp).toContain(option);
    }
    expect(createHelp).toContain('$ ce session create notes.md --participant alice --caps read,write');
    const taskHelp = okPlain(task);
    expect(taskHelp).toMatch(/^Usage: ce task \(<file> \| --url <url>\) <task_id> \[options\]$/m);
    expect(taskHelp).toMatch(/--participant <name> +act as this participant \(with read, write and approve\)/);
  });
});
