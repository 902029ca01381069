// The request log's line, made from kinds kept per route, method, template,
// status and participant: every line is JSON with exactly its request's
// fields, whatever its id holds, and past the limit of kinds kept the lines
// stay right.
import { expect, test } from 'vitest';
import { ByFields } from '../../src/http/observe/by-fields.js';
import { askedPath, mcpFacts } from '../../src/http/observe/request-facts.js';
import { requestLog, type RoomLogger } from '../../src/http/observe/request-log.js';
import { addParticipant, createSession, LOCAL_OPERATOR, removeParticipant, revokeSession } from '../helpers/engine.js';
import { rpcRequest, startTestServer } from '../helpers/server.js';

function capture(): { logger: RoomLogger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const ignore = () => {};
  const logger: RoomLogger = {
    logsInfo: true,
    info: ignore,
    warn: ignore,
    error: ignore,
    infoLine: (fieldsJson, msg) => lines.push(JSON.parse(`{${fieldsJson},"msg":${JSON.stringify(msg)}}`)),
  };
  return { logger, lines };
}

const facts = (participant: string | null, status = 200, method = 'tasks/get', name = '') =>
  mcpFacts('POST', '/mcp', { mcpMethod: method, mcpName: name }, { status, seconds: 0.0012345, participant });

test('each line holds its own request’s fields, whatever its id holds', () => {
  const { logger, lines } = capture();
  const log = requestLog(logger);
  log('plain-id', facts('alice'));
  log('with "quotes" and \\', facts('bob', 404));
  log('tool', facts(null, 200, 'tools/call', 'handoff_create'));
  log('again', facts('alice'));
  const line = (req_id: string, mcp: Record<string, string>, status: number, participant: string | null) => ({
    req_id,
    method: 'POST',
    route: '/mcp',
    ...mcp,
    status,
    participant,
    duration_ms: 1.235,
    msg: 'request',
  });
  const taskGet = { mcp_method: 'tasks/get' };
  expect(lines).toEqual([
    line('plain-id', taskGet, 200, 'alice'),
    line('with "quotes" and \\', taskGet, 404, 'bob'),
    line('tool', { mcp_method: 'tools/call', tool: 'handoff_create' }, 200, null),
    line('again', taskGet, 200, 'alice'),
  ]);
});

test('past the kinds kept, lines are still each their own request’s', () => {
  const { logger, lines } = capture();
  const log = requestLog(logger);
  for (let i = 0; i < 3000; i++) log(`r${i}`, facts(`p${i % 1500}`));
  expect(lines.every((line, i) => line.req_id === `r${i}` && line.participant === `p${i % 1500}`)).toBe(true);
});

test('ByFields: one value per combination of fields, all dropped past its limit', () => {
  const kept = new ByFields<string>(3);
  let made = 0;
  const get = (...fields: unknown[]) => kept.get(fields, () => `${fields.join('/')}#${++made}`);
  expect(get('a', 1, null)).toBe('a/1/#1');
  expect(get('a', 1, null)).toBe('a/1/#1');
  expect(get('a', 2, null)).toBe('a/2/#2');
  expect(get('a', 1, 'x')).toBe('a/1/x#3');
  expect(kept.values()).toEqual(['a/1/#1', 'a/2/#2', 'a/1/x#3']);
  // The limit reached: the next kind made starts the kept ones over.
  expect(get('a', 1, null)).toBe('a/1/#4');
  expect(kept.values()).toEqual(['a/1/#4']);
});

test('a path no route took is in its line, cut at 200 characters, a token in it hidden', () => {
  const { logger, lines } = capture();
  const log = requestLog(logger);
  const unmatched = (path: string) =>
    ({
      door: 'none',
      method: 'GET',
      template: null,
      route: 'unmatched',
      mcpMethod: null,
      tool: null,
      status: 404,
      seconds: 0.001,
      participant: null,
      path: askedPath(path),
    }) as const;
  log('a', unmatched('/rooms/team/workspace/artifact'));
  log('b', unmatched(`/x/${'y'.repeat(300)}`));
  log('c', unmatched('/share/cr_AbC-12_x/artifact'));
  expect(lines.map((line) => line.path)).toEqual([
    '/rooms/team/workspace/artifact',
    `/x/${'y'.repeat(197)}…`,
    '/share/cr_…/artifact',
  ]);
  expect(lines[0]).toMatchObject({ route: null, status: 404, path: '/rooms/team/workspace/artifact' });
});

test('a refused token’s line says why, on every door; the client is told no more than before', async () => {
  const { logger, lines } = capture();
  const s = await startTestServer({ logger });
  try {
    const session = (participant: string, expires_in_seconds?: number) =>
      createSession(s.room, LOCAL_OPERATOR, {
        participant,
        capabilities: ['read'],
        ...(expires_in_seconds === undefined ? {} : { expires_in_seconds }),
      });
    const revoked = session('alice');
    revokeSession(s.room, LOCAL_OPERATOR, { session_id: revoked.session.session_id });
    const expiring = session('alice', 60);
    addParticipant(s.room, LOCAL_OPERATOR, { name: 'erin' });
    const removed = session('erin');
    removeParticipant(s.room, LOCAL_OPERATOR, { name: 'erin' });
    s.clock.advance(61_000);
    const base = s.http.baseUrl;
    const asking = async (token: string | null, how: 'rest' | 'mcp' | 'stream') => {
      const authorization: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
      const response =
        how === 'rest'
          ? await fetch(`${base}/workspace/session`, { headers: authorization })
          : how === 'stream'
            ? await fetch(`${base}/mcp`, { headers: { ...authorization, accept: 'text/event-stream' } })
            : await fetch(
                s.http.mcpUrl,
                rpcRequest(s.http.mcpUrl, 'tools/call', { name: 'session_get', arguments: {} }, { token }).init,
              );
      expect(response.status).toBe(401);
      expect(await response.text()).toMatch(/a valid session token is required/);
    };
    await asking(revoked.token, 'rest');
    await asking(expiring.token, 'mcp');
    await asking(removed.token, 'stream');
    await asking('cr_made_up', 'rest');
    await asking(null, 'mcp');
    expect(lines.filter((line) => line.status === 401).map((line) => line.refused)).toEqual([
      `session ${revoked.session.session_id} (alice) revoked`,
      `session ${expiring.session.session_id} (alice) expired`,
      `session ${removed.session.session_id} (erin) revoked`,
      'a token of no session',
      'no token',
    ]);
  } finally {
    await s.stop();
  }
});
