// ce bridge across a room restart: requests on their way when the room is
// killed get JSON-RPC errors with their ids that say what the bridge knows
// (the room never took the request, or the connection was lost and it may
// have been carried out); the bridge keeps running, says so while the room
// is down, and forwards again once a room runs: for --url on the same port,
// for FILE --participant wherever the new runtime file says, with its new
// operator token. Real processes: `ce serve` (frozen with SIGSTOP so that
// requests wait in its socket, then SIGKILL), the bridge as a bare child.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, onTestFinished, test } from 'vitest';
import {
  bridgeByFile,
  bridgeByUrl,
  jsonRpcLines,
  prepareRoom,
  request,
  spawnBridge,
  type PreparedRoom,
} from '../helpers/ce-bridge.js';
import { ceServe, type ServedRoom } from '../helpers/ce-serve.js';
import { eventually } from '../helpers/mcp-clients.js';
import { rpc } from '../helpers/server.js';

const HANDOFFS_URI = 'workspace:///.room/handoffs';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const EXITS = 15_000; // against a hang only

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const portOf = (served: ServedRoom): number => Number(new URL(served.mcpUrl).port);

/**
 * Connections to 127.0.0.1:port holding bytes the listening process has not
 * read (/proc/net/tcp): requests that reached a frozen room.
 */
function requestsWaitingAt(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, address, , state, queues]) => address === local && state === '01' && !queues!.endsWith(':00000000'))
    .length;
}

function serve(file: string, port: number): Promise<ServedRoom> {
  return ceServe(file, { port }).then((served) => {
    onTestFinished(served.kill);
    return served;
  });
}

const listenRequest = (id: string) =>
  request(id, 'subscriptions/listen', { notifications: { resourceSubscriptions: [HANDOFFS_URI] } });

const isFrame = (method: string, subscription: string) => (m: any) =>
  m.method === method && m.params._meta[SUBSCRIPTION_ID] === subscription;

test.each([
  {
    form: '--url, the room restarting on the same port',
    port: freePort,
    launch: (room: PreparedRoom, first: ServedRoom) => bridgeByUrl(first.mcpUrl, room.tokens.alice!),
    whileDown: (first: ServedRoom) => ({
      code: -32603,
      message: expect.stringMatching(
        new RegExp(
          `^the room at ${new URL(first.mcpUrl).origin} did not take the request \\(ECONNREFUSED\\).*nothing was done`,
        ),
      ),
      data: { reason: 'ECONNREFUSED' },
    }),
  },
  {
    form: 'FILE --participant, the room restarting on a new port with a new operator token',
    port: async () => 0,
    launch: (room: PreparedRoom) => bridgeByFile(room.file, 'alice'),
    whileDown: () => ({ code: -32603, message: expect.stringMatching(/^no room process runs for .*notes\.md/) }),
  },
])(
  'ce bridge $form: in-flight requests fail with their ids, the bridge lives on',
  async ({ port, launch, whileDown }) => {
    const room = prepareRoom({ alice: ['read', 'write'], bob: ['read', 'write'] });
    const chosen = await port();
    const first = await serve(room.file, chosen);
    const bridge = spawnBridge(launch(room, first));
    onTestFinished(bridge.kill);

    bridge.send(request('before', 'tools/call', { name: 'handoff_list', arguments: {} }));
    expect(await bridge.answer('before')).toHaveProperty('result');
    bridge.send(listenRequest('listen-1'));
    await bridge.next('the acknowledgement', isFrame('notifications/subscriptions/acknowledged', 'listen-1'));

    // The room freezes: two requests reach its socket and wait there; then it is killed.
    process.kill(first.pid, 'SIGSTOP');
    bridge.send(request('create', 'tools/call', { name: 'handoff_create', arguments: { summary: 'Lost in transit' } }));
    bridge.send(request('read', 'resources/read', { uri: 'workspace:///notes.md' }));
    await eventually('both requests to reach the frozen room', () =>
      requestsWaitingAt(portOf(first)) >= 2 ? true : undefined,
    );
    first.kill();
    await first.exited;

    const origin = new URL(first.mcpUrl).origin;
    const lost = {
      code: -32603,
      message: expect.stringMatching(
        new RegExp(
          `^the connection to the room at ${origin} was lost before it answered .*may or may not have been carried out`,
        ),
      ),
      data: { reason: expect.any(String) },
    };
    for (const id of ['listen-1', 'create', 'read']) expect((await bridge.answer(id)).error, id).toMatchObject(lost);

    // The bridge lives on, and says the room is down.
    bridge.send(request('while-down', 'tools/list'));
    expect((await bridge.answer('while-down')).error).toMatchObject(whileDown(first));

    // A room runs again: requests and listens go through.
    const second = await serve(room.file, chosen);
    bridge.send(request('after', 'tools/call', { name: 'handoff_list', arguments: {} }));
    const after = await bridge.answer('after');
    expect(after.result?.structuredContent, JSON.stringify(after)).toMatchObject({ handoffs: [] });
    bridge.send(listenRequest('listen-2'));
    await bridge.next('the acknowledgement', isFrame('notifications/subscriptions/acknowledged', 'listen-2'));
    const created = await rpc(
      second.mcpUrl,
      'tools/call',
      { name: 'handoff_create', arguments: { summary: 'After the restart', assignee: 'alice' } },
      { token: room.tokens.bob },
    );
    expect(created.status).toBe(200);
    await bridge.next('resources/updated after the restart', isFrame('notifications/resources/updated', 'listen-2'));

    // A graceful stop: the room's last word to the listen comes through as the listen's answer.
    expect(await second.stop()).toBe(0);
    expect(await bridge.answer('listen-2')).toMatchObject({
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'listen-2' } },
    });

    const code = await Promise.race([
      bridge.end(),
      new Promise((resolve) => setTimeout(() => resolve('still running'), EXITS)),
    ]);
    expect(code).toBe(0);
    const messages = jsonRpcLines(bridge.stdout());
    // Every request answered exactly once (listen-2 was open at the end).
    for (const id of ['before', 'listen-1', 'create', 'read', 'while-down', 'after']) {
      expect(
        messages.filter((m) => m.id === id && !('method' in m)),
        id,
      ).toHaveLength(1);
    }
    expect(bridge.stderr()).toBe('');
  },
);
