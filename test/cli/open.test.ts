// ce open and ce whoami through the real binary: ce open mints a session
// through the running room and prints the page's address with the token in
// the fragment; without a room process it says what to do. ce whoami says
// who ce acts as, here and through --url with a session token.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ceServe, roomOperator, type RoomOperator, type ServedRoom } from '../helpers/ce-serve.js';
import { tempDir } from '../helpers/room.js';
import { ce, failedWith, failedWithJson, okJson, okPlain } from '../helpers/run-ce.js';

/** No desktop, whatever the machine running the tests has. */
const NO_DESKTOP = { DISPLAY: '', WAYLAND_DISPLAY: '' };

let file: string;
let served: ServedRoom;
let room: RoomOperator;
beforeAll(async () => {
  file = path.join(tempDir(), 'notes.md');
  writeFileSync(file, '# Notes\n');
  served = await ceServe(file);
  room = roomOperator(file);
  await room.addParticipant('alice');
}, 60_000);
afterAll(() => served?.stop());

interface Opened {
  url: string;
  opened: boolean;
  session: { session_id: string; participant: string; capabilities: string[]; expires_at: string };
}

const whoAmI = async (token: string) =>
  (await fetch(`${room.baseUrl}/workspace/session`, { headers: { authorization: `Bearer ${token}` } }).then(
    (response) => response.json(),
  )) as { participant: string; capabilities: string[]; session: { session_id: string } };

describe('ce open', () => {
  test('mints a read, write, approve session for a day and prints the page address with the token in the fragment', async () => {
    const before = Date.now();
    const opened = okJson<Opened>(await ce(['open', file, '--participant', 'alice', '--json'], { env: NO_DESKTOP }));
    const match = new RegExp(`^${room.baseUrl.replace(/[.]/g, '\\.')}/#token=(cr_[A-Za-z0-9_-]{43})$`).exec(opened.url);
    expect(match, opened.url).not.toBeNull();
    expect(opened).toMatchObject({
      opened: false,
      session: { participant: 'alice', capabilities: ['read', 'write', 'approve'] },
    });
    const expires = Date.parse(opened.session.expires_at) - before;
    expect(expires).toBeGreaterThan(86_400_000 - 60_000);
    expect(expires).toBeLessThan(86_400_000 + 60_000);
    // The token is a working session of alice's.
    expect(await whoAmI(match![1]!)).toMatchObject({
      participant: 'alice',
      capabilities: ['read', 'write', 'approve'],
      session: { session_id: opened.session.session_id },
    });
  });

  test('--caps and --expires-in as in ce session create; the plain answer starts with the address', async () => {
    const plain = okPlain(
      await ce(['open', file, '--participant', 'alice', '--caps', 'read', '--expires-in', '2h'], { env: NO_DESKTOP }),
    );
    const [url] = plain.split('\n');
    expect(url).toMatch(new RegExp(`^${room.baseUrl.replace(/[.]/g, '\\.')}/#token=cr_`));
    expect(plain).toMatch(/^capabilities: read$/m);
    expect(plain).toContain('Open it in a browser. The address holds the session token');
    expect(plain).toMatch(new RegExp(`^Revoke it with: ce session revoke .*notes\\.md se_`, 'm'));
    const token = decodeURIComponent(new URL(url!).hash.slice('#token='.length));
    expect((await whoAmI(token)).capabilities).toEqual(['read']);
  });

  test('with a desktop, it asks xdg-open to open the address', async () => {
    const bin = path.join(tempDir(), 'bin');
    mkdirSync(bin);
    const said = path.join(bin, 'opened.txt');
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${said}'\n`);
    chmodSync(path.join(bin, 'xdg-open'), 0o755);
    const opened = okJson<Opened>(
      await ce(['open', file, '--participant', 'alice', '--json'], {
        env: { DISPLAY: ':0', WAYLAND_DISPLAY: '', PATH: `${bin}:${process.env.PATH}` },
      }),
    );
    expect(opened.opened).toBe(true);
    await expect.poll(() => readFileSync(said, 'utf8'), { timeout: 10_000 }).toBe(opened.url);
  });

  test('refusals: no room process, a stranger, an unknown capability, no --participant', async () => {
    const unserved = path.join(tempDir(), 'other.md');
    writeFileSync(unserved, '# Other\n');
    const [plain, json, stranger, caps, missing, unread] = await Promise.all([
      ce(['open', unserved, '--participant', 'alice']),
      ce(['open', unserved, '--participant', 'alice', '--json']),
      ce(['open', file, '--participant', 'mallory']),
      ce(['open', file, '--participant', 'alice', '--caps', 'read,fly']),
      ce(['open', file]),
      ce(['open', file, '--participant', 'alice', '--caps', 'write,admin']),
    ]);
    failedWith(unread, 2, /^ce: --caps: the page needs read, to show the room at all; add read\n$/);
    expect(plain.stderr).toBe(
      `ce: no room process serves ${unserved}, and the page is served by one: start it with ce serve ${unserved}, then ce open again\n`,
    );
    failedWith(plain, 1, /no room process serves/);
    failedWithJson(json, 'not_served', /^no room process serves .*other\.md/);
    failedWith(stranger, 1, /mallory is not a participant of this room/);
    failedWith(caps, 2, /--caps: unknown capability "fly"/);
    failedWith(missing, 2, /^ce: missing --participant \(who acts, with FILE\)\n$/);
  });
});

describe('ce whoami', () => {
  test('the local operator, the operator acting as a participant, and a session over --url', async () => {
    const token = await room.session('alice', ['read']);
    const [operator, asAlice, remote] = await Promise.all([
      ce(['whoami', file, '--json']),
      ce(['whoami', file, '--participant', 'alice']),
      ce(['whoami', '--url', room.baseUrl, '--json'], { env: { CE_TOKEN: token } }),
    ]);
    expect(okJson(operator)).toEqual({
      participant: null,
      capabilities: ['read', 'write', 'approve', 'admin'],
      session: null,
      four_eyes: false,
    });
    expect(okPlain(asAlice)).toBe(
      'participant:  alice\ncapabilities: read,write,approve\nsession:      none\nfour eyes:    no\n',
    );
    expect(okJson(remote)).toMatchObject({
      participant: 'alice',
      capabilities: ['read'],
      session: { participant: 'alice' },
    });
  });
});
