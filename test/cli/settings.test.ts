// The room's settings through ce: kept in the sidecar with no room running,
// read by ce serve at its start, and changed through a running room, which
// answers to the new names from its next request.
import { request } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, onTestFinished, test } from 'vitest';
import { ceServe } from '../helpers/ce-serve.js';
import { tempDir } from '../helpers/room.js';
import { ce, failedWith, okJson, okPlain } from '../helpers/run-ce.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** GET /openapi.json with this Host: the status. */
function statusAs(baseUrl: string, host: string): Promise<number> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    request(
      { host: '127.0.0.1', port: Number(port), path: '/openapi.json', headers: { host }, setHost: false },
      (res) => {
        res.resume().on('end', () => resolve(res.statusCode!));
      },
    )
      .on('error', reject)
      .end();
  });
}

test('ce settings-update keeps names in the sidecar; ce serve answers to them, and to a change made while it runs', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  okPlain(await ce(['init', file]));

  const set = okJson<{ settings: unknown }>(
    await ce(['settings-update', file, '--allow-host', 'rooms.example.net,proxy.internal:8443', '--json']),
  );
  expect(set.settings).toEqual({
    allowed_hosts: ['rooms.example.net', 'proxy.internal:8443'],
    allowed_origins: [],
    four_eyes: false,
  });
  expect(okJson(await ce(['settings', file, '--json']))).toEqual(set);
  failedWith(
    await ce(['settings-update', file, '--allow-host', 'https://x.example/']),
    1,
    /^ce: --allow-host must be a host name/,
  );

  const served = await ceServe(file);
  onTestFinished(served.kill);
  const base = new URL(served.mcpUrl).origin;
  expect(await statusAs(base, 'rooms.example.net')).toBe(200);
  expect(await statusAs(base, 'proxy.internal:8443')).toBe(200);
  expect(await statusAs(base, 'elsewhere.example.net')).toBe(403);

  // Through the running room: the next request is judged by the new list.
  okJson(await ce(['settings-update', file, '--allow-host', 'elsewhere.example.net', '--json']));
  expect(await statusAs(base, 'elsewhere.example.net')).toBe(200);
  expect(await statusAs(base, 'rooms.example.net')).toBe(403);
  okJson(await ce(['settings-update', file, '--allow-host', '', '--json']));
  expect(await statusAs(base, 'elsewhere.example.net')).toBe(403);
  expect(await served.stop()).toBe(0);
});

test('four eyes: ce settings-update --four-eyes on|off keeps it; ce serve --four-eyes asks for it whatever the setting', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  okPlain(await ce(['init', file]));
  okPlain(await ce(['participant', 'add', file, 'alice']));
  okPlain(await ce(['participant', 'add', file, 'carol']));

  const on = okJson<{ settings: { four_eyes: boolean } }>(
    await ce(['settings-update', file, '--four-eyes', 'on', '--json']),
  );
  expect(on.settings.four_eyes).toBe(true);
  failedWith(
    await ce(['settings-update', file, '--four-eyes', 'maybe']),
    2,
    /--four-eyes must be on or off \(got "maybe"\)/,
  );
  writeFileSync(path.join(dir, 'next.md'), '# Notes, again\n');
  const first = okJson<{ proposal: { proposal_id: string } }>(
    await ce([
      'propose',
      file,
      '--participant',
      'alice',
      '--base',
      '1',
      '--content-file',
      path.join(dir, 'next.md'),
      '--summary',
      'A change',
      '--json',
    ]),
  ).proposal.proposal_id;
  failedWith(
    await ce(['proposal-approve', file, first, '--participant', 'alice']),
    1,
    /four eyes: proposal .* is alice's own work/,
  );
  expect(
    okJson<{ settings: { four_eyes: boolean } }>(await ce(['settings-update', file, '--four-eyes', 'off', '--json']))
      .settings.four_eyes,
  ).toBe(false);

  // The setting is off; the room process was started with --four-eyes: its own decisions still need a second person.
  const served = await ceServe(file, { args: ['--four-eyes'] });
  onTestFinished(served.kill);
  failedWith(await ce(['proposal-approve', file, first, '--participant', 'alice']), 1, /four eyes/);
  okJson(await ce(['proposal-approve', file, first, '--participant', 'carol', '--json']));
  expect(await served.stop()).toBe(0);
});
