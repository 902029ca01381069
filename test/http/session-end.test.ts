// A session ends everywhere at once. Against a real `ce serve`: alice listens
// (subscriptions/listen for her task and the handoffs view) and holds a
// legacy GET /mcp stream subscribed to the same view; then her session is
// revoked, expires, or she is removed. Her streams close (the listen with an
// error answer saying why), and when bob then completes the handoff they
// would have reported, neither carried it. Her next request is 401.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ceServe, roomOperator, type RoomOperator, type ServedRoom } from '../helpers/ce-serve.js';
import { isMethod, nextFrame, openSse, post, mcpHeaders, requestMeta, type SseClient } from '../helpers/mcp-wire.js';
import { rpcRequest } from '../helpers/server.js';

const HANDOFFS_VIEW = 'workspace:///.room/handoffs';

let dir: string;
let file: string;
let served: ServedRoom;
let op: RoomOperator;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'commonroom-session-end-'));
  file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  served = await ceServe(file);
  op = roomOperator(file);
  await op.addParticipant('bob');
}, 60_000);

afterAll(async () => {
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let round = 0;

/** A fresh participant with a session (optionally expiring), a handoff it owns that bob took, and its two streams open. */
async function aliceListening(expiresInSeconds?: number) {
  const name = `alice-${++round}`;
  await op.addParticipant(name);
  const created = await op.rest('POST', '/workspace/sessions', {
    participant: name,
    capabilities: ['read', 'write'],
    ...(expiresInSeconds === undefined ? {} : { expires_in_seconds: expiresInSeconds }),
  });
  expect(created.status).toBe(201);
  const token = created.body.token as string;
  const sessionId = created.body.session.session_id as string;
  const handoff = await op.rest('POST', '/workspace/handoffs', { summary: 'Check the figures', assignee: 'bob' }, name);
  expect(handoff.status).toBe(201);
  const handoffId = handoff.body.handoff.handoff_id as string;
  const taskId = handoff.body.handoff.task_id as string;
  expect((await op.rest('POST', `/workspace/handoffs/${handoffId}/accept`, undefined, 'bob')).status).toBe(200);

  const { url, init } = rpcRequest(
    served.mcpUrl,
    'subscriptions/listen',
    { notifications: { taskIds: [taskId], resourceSubscriptions: [HANDOFFS_VIEW] } },
    { token, tasks: true, id: 'watch' },
  );
  const listen = await openSse(url, init);
  const ack = await nextFrame(listen, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
  expect(ack.params.notifications).toEqual({ taskIds: [taskId], resourceSubscriptions: [HANDOFFS_VIEW] });

  const subscribed = await post(
    served.mcpUrl,
    { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: HANDOFFS_VIEW, _meta: requestMeta() } },
    mcpHeaders('resources/subscribe', token, { 'mcp-name': HANDOFFS_VIEW }),
  );
  expect(subscribed.status).toBe(200);
  const legacy = await openSse(served.mcpUrl, {
    method: 'GET',
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  expect(legacy.response.status).toBe(200);
  return { name, token, sessionId, handoffId, listen, legacy };
}

/** Bob completes the handoff: the change both streams would have reported. */
async function bobCompletes(handoffId: string): Promise<void> {
  const done = await op.rest(
    'POST',
    `/workspace/handoffs/${handoffId}/complete`,
    { result: { content: [{ type: 'text', text: 'the figures add up' }] } },
    'bob',
  );
  expect(done.status).toBe(200);
}

async function expectClosedAndSilent(listen: SseClient, legacy: SseClient): Promise<void> {
  await listen.ended;
  await legacy.ended;
  const last = listen.frames.at(-1);
  expect(last).toMatchObject({
    jsonrpc: '2.0',
    id: 'watch',
    error: { code: -32600, data: { reason: 'session_ended' } },
  });
  expect(last.error.message).toMatch(/session of this stream ended/);
  // Nothing but the acknowledgement and that last word: no task notification, no view update.
  expect(listen.frames.map((frame) => frame.method ?? 'answer')).toEqual([
    'notifications/subscriptions/acknowledged',
    'answer',
  ]);
  expect(legacy.frames).toEqual([]);
}

async function expectRefused(token: string): Promise<void> {
  const r = await fetch(`${new URL(served.mcpUrl).origin}/workspace/session`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(r.status).toBe(401);
  expect(r.headers.get('www-authenticate')).toBe('Bearer');
}

test('revoking a session closes its listen and GET /mcp streams; a completion after it reaches neither', async () => {
  const alice = await aliceListening();
  const revoked = await op.rest('DELETE', `/workspace/sessions/${alice.sessionId}`);
  expect(revoked.status).toBe(200);
  await expectClosedAndSilent(alice.listen, alice.legacy);
  await bobCompletes(alice.handoffId);
  await expectRefused(alice.token);
});

test('removing the participant closes the streams of its sessions', async () => {
  const alice = await aliceListening();
  const removed = await op.rest('DELETE', `/workspace/participants/${alice.name}`);
  expect(removed.status).toBe(200);
  await expectClosedAndSilent(alice.listen, alice.legacy);
  await bobCompletes(alice.handoffId);
  await expectRefused(alice.token);
});

test('a session that expires closes its streams with no request to notice it', async () => {
  const alice = await aliceListening(2);
  // Nothing is sent or asked: the room notices the expiry on its own.
  await expectClosedAndSilent(alice.listen, alice.legacy);
  await bobCompletes(alice.handoffId);
  await expectRefused(alice.token);
});

test('the streams of other sessions go on: bob still hears of the completion', async () => {
  const alice = await aliceListening();
  const bobToken = await op.session('bob', ['read', 'write']);
  const { url, init } = rpcRequest(
    served.mcpUrl,
    'subscriptions/listen',
    { notifications: { resourceSubscriptions: [HANDOFFS_VIEW] } },
    { token: bobToken, id: 'bob' },
  );
  const bobListen = await openSse(url, init);
  await nextFrame(bobListen, isMethod('notifications/subscriptions/acknowledged'), 'bob’s acknowledgement');
  expect((await op.rest('DELETE', `/workspace/sessions/${alice.sessionId}`)).status).toBe(200);
  await expectClosedAndSilent(alice.listen, alice.legacy);
  await bobCompletes(alice.handoffId);
  await nextFrame(bobListen, isMethod('notifications/resources/updated'), 'the handoffs view update');
  expect(bobListen.done).toBe(false);
  bobListen.abort();
});

/** A POST whose body is sent in two parts, `between` running after the first; its status and body. */
function slowPost(url: string, headers: Record<string, string>, body: string, between: () => Promise<void>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const request = httpRequest(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
    });
    request.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
    });
    request.on('error', reject);
    request.flushHeaders();
    request.write(body.slice(0, 5));
    // The room has authenticated the request by the time the participant is removed.
    setTimeout(() => void between().then(() => request.end(body.slice(5)), reject), 200);
  });
}

test('a write whose body was on its way when its participant was removed is refused (401), and changes nothing', async () => {
  for (const door of ['REST', 'MCP'] as const) {
    const name = `mallory-${door}`;
    await op.addParticipant(name);
    const created = await op.rest('POST', '/workspace/sessions', {
      participant: name,
      capabilities: ['read', 'write'],
    });
    const token = created.body.token as string;
    const summary = `made by ${name} after removal`;
    const remove = async () => {
      expect((await op.rest('DELETE', `/workspace/participants/${name}`)).status).toBe(200);
    };
    const answer =
      door === 'REST'
        ? await slowPost(
            `${served.restUrl}/handoffs`,
            { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            JSON.stringify({ summary }),
            remove,
          )
        : await slowPost(
            served.mcpUrl,
            { ...mcpHeaders('tools/call', token), 'mcp-name': 'handoff_create' },
            JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'handoff_create', arguments: { summary }, _meta: requestMeta() },
            }),
            remove,
          );
    expect(answer.status, `${door}: ${JSON.stringify(answer.body)}`).toBe(401);
    const listed = await op.rest('GET', '/workspace/handoffs?limit=500');
    expect(listed.body.handoffs.map((h: { summary: string }) => h.summary)).not.toContain(summary);
  }
});
