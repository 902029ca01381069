// What ce bridge writes, byte for byte: every line on its stdout is one
// JSON-RPC message, whatever it was sent (bad lines, bad requests, listens
// with frames, errors of the room and of the bridge itself), and it exits
// with 0 when its stdin closes, open listens and all. Real processes: `ce
// serve`, the bridge as a bare child, another participant over HTTP.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import {
  bridgeByFile,
  bridgeByUrl,
  jsonRpcLines,
  prepareRoom,
  request,
  spawnBridge,
  type BridgeProcess,
  type Line,
  type PreparedRoom,
} from '../helpers/ce-bridge.js';
import { ceServe, roomOperator, type ServedRoom } from '../helpers/ce-serve.js';
import { eventually } from '../helpers/mcp-clients.js';
import { ce, failedWith } from '../helpers/run-ce.js';
import { rpc } from '../helpers/server.js';

const HANDOFFS_URI = 'workspace:///.room/handoffs';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const EXITS = 15_000; // against a hang only: the bridge is meant to exit within a second

let room: PreparedRoom;
let served: ServedRoom;

beforeAll(async () => {
  room = prepareRoom({ alice: ['read', 'write'], bob: ['read', 'write'] });
  served = await ceServe(room.file);
});

afterAll(async () => {
  await served.stop();
});

function bridge(launch: Parameters<typeof spawnBridge>[0]): BridgeProcess {
  const child = spawnBridge(launch);
  onTestFinished(child.kill);
  return child;
}

const errorOf = (messages: Line[], id: string | number | null) =>
  messages.filter((m) => !('method' in m) && m.id === id).map((m) => m.error?.code ?? 'result');

test('every line on stdout is a JSON-RPC message: bad lines, bad requests, listens with frames, errors', async () => {
  const alice = bridge(bridgeByUrl(served.mcpUrl, room.tokens.alice!));

  // Lines that are not requests: each gets the JSON-RPC error for it, with the id when it has a usable one.
  alice.send('this is not JSON');
  alice.send('{"jsonrpc":"2.0","id":1,"method":"tools/list"'); // cut short
  alice.send('[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]'); // a batch: not in 2026-07-28
  alice.send('42');
  alice.send({ jsonrpc: '2.0', id: 'no-method' });
  alice.send({ jsonrpc: '1.0', id: 'old', method: 'tools/list' });
  alice.send({ jsonrpc: '2.0', id: { not: 'an id' }, method: 'tools/list' });
  alice.send({ jsonrpc: '2.0', id: 1.5, method: 'tools/list' });
  alice.send('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}'); // read as 2^53: not the id sent
  alice.send('{"jsonrpc":"2.0","id":3,"method":"tools/list","__proto__":{}}'); // refused like a room body
  // Nothing to answer: an empty line, a response from the client, a notification.
  alice.send('');
  alice.send({ jsonrpc: '2.0', id: 'from-client', result: {} });
  alice.send({ jsonrpc: '2.0', method: 'notifications/initialized', params: {} });
  // Requests the room refuses: it names why, and the id comes back.
  alice.send({ jsonrpc: '2.0', id: 'no-meta', method: 'tools/list', params: {} });
  alice.send(request('unknown-method', 'tools/frobnicate'));
  alice.send(request('bad-params', 'tools/call', { name: 'handoff_create', arguments: { summary: 7 } }));
  alice.send({ ...request('null-params', 'tools/call'), params: null });
  // A tool name that is not plain ASCII travels Base64-wrapped in Mcp-Name and still matches the body.
  alice.send(request('not-ascii', 'tools/call', { name: 'réunion', arguments: {} }));
  // A request with CRLF line ending, and good requests among the bad.
  alice.child.stdin!.write(`${JSON.stringify(request('crlf', 'server/discover'))}\r\n`);
  alice.send(request(0, 'tools/list'));
  // Deeply nested arguments: the room refuses them (the bridge passes the line on as it came, and names its id).
  const nested = JSON.stringify(request('nested', 'tools/call', { name: 'workspace_read', arguments: { x: 'HOLE' } }));
  alice.send(nested.replace('"HOLE"', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`));

  const answered = await Promise.all(
    [
      'no-method',
      'old',
      'no-meta',
      'unknown-method',
      'bad-params',
      'null-params',
      'not-ascii',
      'crlf',
      0,
      'nested',
    ].map((id) => alice.answer(id)),
  );
  expect(Object.fromEntries(answered.map((m) => [m.id, m.error?.code ?? 'result']))).toEqual({
    'no-method': -32600,
    old: -32600,
    'no-meta': -32020,
    'unknown-method': -32601,
    'bad-params': 'result', // a tool's refusal is its result, with isError
    'null-params': -32600,
    'not-ascii': -32602,
    crlf: 'result',
    0: 'result',
    nested: -32600,
  });
  expect(answered.find((m) => m.id === 'bad-params').result.isError).toBe(true);
  expect(answered.find((m) => m.id === 'nested').error.message).toBe(
    'the request body nests deeper than 64 levels of objects and arrays',
  );
  expect(answered.find((m) => m.id === 'not-ascii').error.message).toMatch(/réunion/);

  // Two listens at once; another participant acts over HTTP; one is cancelled, the other stays open.
  alice.send(request('listen-1', 'subscriptions/listen', { notifications: { resourceSubscriptions: [HANDOFFS_URI] } }));
  alice.send(request('listen-2', 'subscriptions/listen', { notifications: { resourceSubscriptions: [HANDOFFS_URI] } }));
  for (const id of ['listen-1', 'listen-2']) {
    await alice.next(
      `the acknowledgement of ${id}`,
      (m) => m.method === 'notifications/subscriptions/acknowledged' && m.params._meta[SUBSCRIPTION_ID] === id,
    );
  }
  const created = await rpc(
    served.mcpUrl,
    'tools/call',
    { name: 'handoff_create', arguments: { summary: 'Check the figures', assignee: 'alice' } },
    { token: room.tokens.bob },
  );
  expect(created.status).toBe(200);
  for (const id of ['listen-1', 'listen-2']) {
    await alice.next(
      `resources/updated on ${id}`,
      (m) => m.method === 'notifications/resources/updated' && m.params._meta[SUBSCRIPTION_ID] === id,
    );
  }
  alice.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen-1', reason: 'done' } });
  // A request after the cancel: its answer comes after the cancel was carried out.
  alice.send(request('after-cancel', 'tools/list'));
  await alice.answer('after-cancel');
  const updatesOn = (id: string) =>
    alice
      .messages()
      .filter((m) => m.method === 'notifications/resources/updated' && m.params._meta[SUBSCRIPTION_ID] === id);
  const [heard1, heard2] = [updatesOn('listen-1').length, updatesOn('listen-2').length];
  const again = await rpc(
    served.mcpUrl,
    'tools/call',
    { name: 'handoff_create', arguments: { summary: 'Check them again', assignee: 'alice' } },
    { token: room.tokens.bob },
  );
  expect(again.status).toBe(200);
  await eventually('listen-2 to hear of the second handoff', () =>
    updatesOn('listen-2').length > heard2 ? true : undefined,
  );
  expect(updatesOn('listen-1')).toHaveLength(heard1);
  // One more request right before stdin closes: whatever comes of it is a JSON-RPC message too.
  alice.send(request('last', 'tools/list'));

  // Closing stdin with a listen open: the bridge exits, and with 0.
  const code = await Promise.race([
    alice.end(),
    new Promise((resolve) => setTimeout(() => resolve('still running'), EXITS)),
  ]);
  expect(code).toBe(0);
  expect(alice.stderr()).toBe('');

  const messages = jsonRpcLines(alice.stdout());
  // The bad lines without a usable id: parse errors and invalid requests with id null, one each, in order.
  expect(errorOf(messages, null)).toEqual([-32700, -32700, -32600, -32600, -32600, -32600, -32600, -32700]);
  // The notification, the client's own response and the empty line were not answered.
  expect(messages.filter((m) => m.id === 'from-client')).toEqual([]);
  // Each request answered once; the cancelled listen never, the listen open at the end never.
  for (const id of [
    'no-method',
    'old',
    'no-meta',
    'unknown-method',
    'bad-params',
    'null-params',
    'not-ascii',
    'crlf',
    0,
    'nested',
    'after-cancel',
  ]) {
    expect(errorOf(messages, id), String(id)).toHaveLength(1);
  }
  expect(errorOf(messages, 'listen-1')).toEqual([]);
  expect(errorOf(messages, 'listen-2')).toEqual([]);
});

test('a session revoked while its listen runs through the bridge: the host gets the listen’s error answer, and the bridge goes on', async () => {
  const op = roomOperator(room.file);
  await op.addParticipant('erin');
  const created = await op.rest('POST', '/workspace/sessions', { participant: 'erin', capabilities: ['read'] });
  const erin = bridge(bridgeByUrl(served.mcpUrl, created.body.token));
  erin.send(request('listen', 'subscriptions/listen', { notifications: { resourceSubscriptions: [HANDOFFS_URI] } }));
  await erin.next('the acknowledgement', (m) => m.method === 'notifications/subscriptions/acknowledged');
  expect((await op.rest('DELETE', `/workspace/sessions/${created.body.session.session_id}`)).status).toBe(200);
  const ended = await erin.answer('listen');
  expect(ended.error).toMatchObject({ code: -32600, data: { reason: 'session_ended' } });
  expect(ended.error.message).toMatch(/session of this stream ended/);
  // The bridge still answers: the room refuses the revoked token from now on.
  erin.send(request(1, 'server/discover'));
  expect((await erin.answer(1)).error).toMatchObject({ code: -32600, message: expect.stringMatching(/token/) });
  expect(await erin.end()).toBe(0);
  expect(jsonRpcLines(erin.stdout()).filter((m) => m.method === 'notifications/resources/updated')).toEqual([]);
});

test('errors of the bridge itself are JSON-RPC answers too: a refused token, a room that is not there', async () => {
  // A port nobody listens on.
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));

  const refused = bridge(bridgeByUrl(served.mcpUrl, 'cr_not_a_token'));
  const nowhere = bridge(bridgeByUrl(`http://127.0.0.1:${port}`, room.tokens.alice!));
  const notRunning = bridge(bridgeByFile(`${room.dir}/other.md`, 'alice'));
  for (const child of [refused, nowhere, notRunning]) {
    child.send(request(1, 'server/discover'));
    child.send(request('listen', 'subscriptions/listen', { notifications: { resourceSubscriptions: [HANDOFFS_URI] } }));
    child.send('not JSON');
  }
  const [unauthorized, unreachable, noRoom] = await Promise.all([
    refused.answer(1),
    nowhere.answer(1),
    notRunning.answer(1),
  ]);
  // The room's own refusal (HTTP 401) comes through as it is.
  expect(unauthorized.error).toMatchObject({ code: -32600, message: expect.stringMatching(/token|session/i) });
  expect(unreachable.error).toMatchObject({
    code: -32603,
    message: expect.stringContaining(`the room at http://127.0.0.1:${port} did not take the request`),
    data: { reason: 'ECONNREFUSED' },
  });
  expect(noRoom.error).toMatchObject({
    code: -32603,
    message: expect.stringMatching(/no room process runs for .*other\.md/),
  });
  for (const child of [refused, nowhere, notRunning]) {
    await child.answer('listen');
    await child.next('the parse error', (m) => m.id === null);
    const code = await Promise.race([
      child.end(),
      new Promise((resolve) => setTimeout(() => resolve('still running'), EXITS)),
    ]);
    expect(code).toBe(0);
    const messages = jsonRpcLines(child.stdout());
    expect(messages.map((m) => [m.id, m.error?.code ?? 'result'])).toEqual(
      expect.arrayContaining([
        [1, expect.any(Number)],
        ['listen', expect.any(Number)],
        [null, -32700],
      ]),
    );
    expect(messages).toHaveLength(3);
  }
});

test('options that cannot work are refused at once: exit 2, a message on stderr, nothing on stdout', async () => {
  const refusals = await Promise.all([
    ce(['bridge']),
    ce(['bridge', room.file, '--url', served.mcpUrl]),
    ce(['bridge', room.file]),
    ce(['bridge', '--url', served.mcpUrl, '--participant', 'alice']),
    ce(['bridge', '--url', served.mcpUrl], { env: { CE_TOKEN: '' } }),
    ce(['bridge', '--url', 'ftp://example.com'], { env: { CE_TOKEN: 'cr_x' } }),
    ce(['bridge', '--url', served.mcpUrl], { env: { CE_TOKEN: 'cr_李' } }),
    // A name the room could never know: it travels in a header, where it would change or be refused.
    ce(['bridge', room.file, '--participant', '李']),
    ce(['bridge', room.file, '--participant', '']),
  ]);
  const messages = [
    /give either FILE .* or --url .*, neither was given$/m,
    /give either FILE .* or --url .*, not both$/m,
    /with FILE, --participant names who acts/,
    /--participant goes with FILE/,
    /a session token is needed: set CE_TOKEN, or give --token-file FILE/,
    /--url must be an http or https address/,
    /the session token in CE_TOKEN holds characters no session token has/,
    /--participant "李" is not a participant name/,
    /--participant "" is not a participant name/,
  ];
  refusals.forEach((run, i) => failedWith(run, 2, messages[i]!));
});
