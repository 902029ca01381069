// ce serve's log, over real HTTP: one JSON line per request on stderr with
// its id, route, MCP method and tool, status, duration and participant; one
// per state change; one per lifecycle step (start, migration, stop); never a
// token or a text someone wrote. Off with --log-level silent; a level or
// format that is not one is a usage error.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { addParticipant, createSession, LOCAL_OPERATOR } from '../helpers/engine.js';
import { ceServe } from '../helpers/ce-serve.js';
import { withRoomFile } from '../helpers/room-file.js';
import { tempDir } from '../helpers/room.js';
import { ce } from '../helpers/run-ce.js';
import { rpc } from '../helpers/server.js';
import { readRuntimeFile } from '../../src/http/runtime-file.js';

const SLOW = { timeout: 60_000 };

/** What ce serve wrote on stderr, a JSON line each. */
const jsonLines = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A room with alice, and her session's token. */
const prepareRoom = () =>
  withRoomFile((room) => {
    addParticipant(room, LOCAL_OPERATOR, { name: 'alice' });
    return createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read', 'write'] });
  });

test('a line per request, with what it was and who asked, and no token', SLOW, async () => {
  const { file, token } = prepareRoom();
  const served = await ceServe(file, { args: ['--log-level', 'info', '--log-format', 'json'] });
  onTestFinished(served.kill);
  const base = served.restUrl.replace(/\/workspace$/, '');
  await fetch(`${served.restUrl}/session`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'req-1' } });
  const created = await rpc(
    served.mcpUrl,
    'tools/call',
    { name: 'handoff_create', arguments: { summary: 'Proofread' } },
    { token },
  );
  expect(created.body.result.isError).not.toBe(true);
  await fetch(`${base}/healthz`);
  await fetch(`${served.restUrl}/session`, { headers: { authorization: 'Bearer cr_not_a_token' } });
  await fetch(`${base}/rooms/team/workspace/session?x=1`, { headers: { authorization: `Bearer ${token}` } });
  const operatorToken = readRuntimeFile(file)!.operator_token;
  expect(await served.stop()).toBe(0);

  const lines = jsonLines(served.stderr());
  const requests = lines.filter((line) => line.msg === 'request');
  expect(requests.map(({ time, pid, duration_ms, req_id, level, ...rest }) => rest)).toEqual([
    { method: 'GET', route: '/workspace/session', status: 200, participant: 'alice', msg: 'request' },
    {
      method: 'POST',
      route: '/mcp',
      mcp_method: 'tools/call',
      tool: 'handoff_create',
      status: 200,
      participant: 'alice',
      msg: 'request',
    },
    { method: 'GET', route: '/healthz', status: 200, participant: null, msg: 'request' },
    // Why the token was refused is the operator's to read; the client's answer says no more than before.
    {
      method: 'GET',
      route: '/workspace/session',
      status: 401,
      participant: null,
      refused: 'a token of no session',
      msg: 'request',
    },
    // No route took it (a proxy's prefix, say): the path asked for says why.
    {
      method: 'GET',
      route: null,
      status: 404,
      participant: null,
      path: '/rooms/team/workspace/session',
      msg: 'request',
    },
  ]);
  expect(requests[0]).toMatchObject({ req_id: 'req-1', level: 30, duration_ms: expect.any(Number) });
  for (const line of requests.slice(1)) expect(line.req_id).toMatch(/^[0-9a-f-]{36}$/);

  // The room's start and stop around everything; the change logged as it committed, before its answer left.
  expect(lines[0]).toMatchObject({ msg: 'room started', version: expect.any(String), url: base, level: 30 });
  expect(lines.at(-1)).toMatchObject({ msg: 'room stopped' });
  const change = lines.findIndex((line) => line.msg === 'change');
  expect(lines[change]).toEqual({
    level: 30,
    time: expect.any(Number),
    pid: expect.any(Number),
    change: 'handoff.created',
    event_id: expect.any(Number),
    actor: 'alice',
    handoff_id: expect.stringMatching(/^ho_/),
    task_id: expect.stringMatching(/^tk_/),
    msg: 'change',
  });
  expect(lines[change + 1]).toMatchObject({ msg: 'request', tool: 'handoff_create' });
  expect(lines).toHaveLength(requests.length + 3);
  for (const secret of [token, operatorToken, 'cr_not_a_token', 'Proofread']) {
    expect(served.stderr()).not.toContain(secret);
  }
});

test("a room made by ce serve logs its sidecar's migrations, and that it is a new room", SLOW, async () => {
  const file = path.join(tempDir(), 'fresh.md');
  writeFileSync(file, '# Fresh\n');
  const served = await ceServe(file, { args: ['--log-level', 'info', '--log-format', 'json'] });
  expect(await served.stop()).toBe(0);
  const lines = jsonLines(served.stderr());
  expect(lines.map((line) => line.msg)).toEqual([
    'sidecar migrated',
    'a new room: no sidecar was beside fresh.md, so one was made (no participants, sessions or history yet); if the file has a room elsewhere, stop this one and bring that sidecar here',
    'room started',
    'room stopped',
  ]);
  expect(lines[0]!.applied).toEqual(expect.arrayContaining([1, 2]));
  // Served again, it is the room it was: not new.
  const again = await ceServe(file, { args: ['--log-level', 'info', '--log-format', 'json'] });
  expect(await again.stop()).toBe(0);
  expect(jsonLines(again.stderr()).map((line) => line.msg)).toEqual(['room started', 'room stopped']);
});

test('--log-level silent writes no line; a level or format that is not one is a usage error', SLOW, async () => {
  const { file, token } = prepareRoom();
  const served = await ceServe(file, { args: ['--log-level', 'silent'] });
  await fetch(`${served.restUrl}/session`, { headers: { authorization: `Bearer ${token}` } });
  expect(await served.stop()).toBe(0);
  expect(served.stderr()).toBe('');
  const [level, format] = await Promise.all([
    ce(['serve', file, '--log-level', 'loud']),
    ce(['serve', file, '--log-format', 'xml']),
  ]);
  expect({ code: level.code, stderr: level.stderr }).toEqual({
    code: 2,
    stderr: 'ce: --log-level must be one of silent, error, warn, info, debug (got "loud")\n',
  });
  expect({ code: format.code, stderr: format.stderr }).toEqual({
    code: 2,
    stderr: 'ce: --log-format must be one of json, pretty (got "xml")\n',
  });
});
