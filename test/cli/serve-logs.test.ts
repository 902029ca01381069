// ce serve's request log, over real HTTP: one JSON line per request on
// stderr with its id, route, MCP method and tool, status, duration and
// participant; never a token. Off with --log-level silent; a level or format
// that is not one is a usage error.
import { expect, onTestFinished, test } from 'vitest';
import { addParticipant, createSession, LOCAL_OPERATOR } from '../helpers/engine.js';
import { ceServe } from '../helpers/ce-serve.js';
import { withRoomFile } from '../helpers/room-file.js';
import { ce } from '../helpers/run-ce.js';
import { rpc } from '../helpers/server.js';
import { readRuntimeFile } from '../../src/http/runtime-file.js';

const SLOW = { timeout: 60_000 };

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
  const operatorToken = readRuntimeFile(file)!.operator_token;
  expect(await served.stop()).toBe(0);

  const lines = served
    .stderr()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.map(({ time, pid, hostname, duration_ms, req_id, level, ...rest }) => rest)).toEqual([
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
    { method: 'GET', route: '/workspace/session', status: 401, participant: null, msg: 'request' },
  ]);
  expect(lines[0]).toMatchObject({ req_id: 'req-1', level: 30, duration_ms: expect.any(Number) });
  for (const line of lines.slice(1)) expect(line.req_id).toMatch(/^[0-9a-f-]{36}$/);
  for (const secret of [token, operatorToken, 'cr_not_a_token', 'Proofread']) {
    expect(served.stderr()).not.toContain(secret);
  }
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
