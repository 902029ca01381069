// ce bridge driven by the official MCP packages, unmodified, over stdio: the
// SDK Client with its StdioClientTransport launches the bridge (both forms:
// --url with CE_TOKEN, and FILE --participant against the room's runtime
// file), and the Tasks requester of ext-tasks gets its raw request path from
// a second bridge. A real `ce serve` answers; other participants act over
// plain HTTP.
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import { CreateTaskResultV2Schema, TaskStatusNotificationV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { HandoffTaskOutput } from '../../generated/types.js';
import {
  bridgeByFile,
  bridgeByUrl,
  prepareRoom,
  stdioBridge,
  type PreparedRoom,
  type StdioBridge,
} from '../helpers/ce-bridge.js';
import { ceServe, type ServedRoom } from '../helpers/ce-serve.js';
import {
  connectClientOver,
  eventually,
  rawDispatcherOver,
  resultOf,
  v2Framing,
  type RawDispatcher,
} from '../helpers/mcp-clients.js';
import {
  acknowledgedTaskIds,
  bobsResult,
  call,
  HANDOFF_ID_META,
  taskFilter,
  wholeHandoff,
} from '../helpers/interop.js';
import { PROTOCOL_VERSION, TASKS, rpc } from '../helpers/server.js';

type Who = 'alice' | 'bob';

const HANDOFFS_URI = 'workspace:///.room/handoffs';

let room: PreparedRoom;
let served: ServedRoom;
let cleanups: (() => Promise<unknown>)[] = [];
let bridges: StdioBridge[] = [];

beforeAll(async () => {
  // alice approves too: the whole handoff ends with her decision.
  room = prepareRoom({ alice: ['read', 'write', 'approve'], bob: ['read', 'write'] });
  served = await ceServe(room.file);
});

afterAll(async () => {
  await served.stop();
});

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
  // Nothing went wrong that a bridge would have logged.
  const logged = bridges.map((bridge) => bridge.stderr()).filter((text) => text !== '');
  bridges = [];
  expect(logged).toEqual([]);
});

/** A tool call over HTTP, as a participant using no bridge; its structuredContent. */
async function overHttp(who: Who, name: string, args: Record<string, unknown>): Promise<any> {
  const { status, body } = await rpc(
    served.mcpUrl,
    'tools/call',
    { name, arguments: args },
    { token: room.tokens[who] },
  );
  expect({ status, isError: body.result?.isError ?? false }, JSON.stringify(body)).toEqual({
    status: 200,
    isError: false,
  });
  return body.result.structuredContent;
}

describe.each([
  { form: '--url, the token in CE_TOKEN', launch: (who: Who) => bridgeByUrl(served.mcpUrl, room.tokens[who]!) },
  {
    form: 'FILE --participant, the running room found by its runtime file',
    launch: (who: Who) => bridgeByFile(room.file, who),
  },
])('ce bridge $form, launched by the official stdio transport', ({ launch }) => {
  /** A pinned Client of `who`, connected through a bridge of its own. */
  async function client(who: Who, options: { tasks?: boolean; onInbound?: (m: JSONRPCMessage) => void } = {}) {
    const bridge = stdioBridge(launch(who));
    bridges.push(bridge);
    const connected = await connectClientOver(bridge.transport, { name: who, ...options });
    cleanups.push(() => connected.close());
    return connected;
  }

  /** The raw request path of `who` (for ext-tasks, and tasks/* by hand): a bridge of its own. */
  async function raw(who: Who): Promise<RawDispatcher> {
    const bridge = stdioBridge(launch(who));
    bridges.push(bridge);
    const dispatcher = await rawDispatcherOver(bridge.transport, { name: who });
    cleanups.push(() => dispatcher.close());
    return dispatcher;
  }

  test('the Client connects pinned to 2026-07-28 through server/discover, lists and reads tools and resources', async () => {
    const alice = await client('alice');
    expect(alice.getProtocolEra()).toBe('modern');
    expect(alice.getNegotiatedProtocolVersion()).toBe(PROTOCOL_VERSION);
    expect(alice.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
    expect(alice.getServerVersion()).toMatchObject({ name: 'commonroom' });

    const { tools } = await alice.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['handoff_create', 'handoff_accept', 'workspace_read', 'workspace_propose']),
    );
    const read = await call<{ content: string }>(alice, 'workspace_read', {});
    expect(read.content).toBe('# Notes\n');

    const { resources } = await alice.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(
      ['workspace:///notes.md', HANDOFFS_URI, 'workspace:///.room/proposals', 'workspace:///.room/history'].sort(),
    );
    const { contents } = await alice.readResource({ uri: 'workspace:///notes.md' });
    expect(contents).toEqual([{ uri: 'workspace:///notes.md', mimeType: 'text/markdown', text: '# Notes\n' }]);
    // A resource that is not there: the room's JSON-RPC error comes back through the bridge.
    await expect(alice.readResource({ uri: 'workspace:///nope' })).rejects.toThrow(/unknown resource/);
  });

  test('a whole handoff between alice and bob, each through a bridge: create, accept, input, tasks/update, complete, approve', async () => {
    const rawAlice = await raw('alice');
    const alice = await client('alice');
    const bob = await client('bob');

    await wholeHandoff({ owner: rawAlice, assignee: bob, approver: alice, approverName: 'alice' });
  });

  test('the Tasks requester of ext-tasks: a task, tasks/get, an input round trip, cancel', async () => {
    const asked: unknown[] = [];
    const onInputRequest = createApplicationInputHandler({
      elicitation: (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { answer: 'British spelling' } };
      },
      sampling: () => {
        throw new Error('the room never asks for sampling');
      },
      roots: () => {
        throw new Error('the room never asks for roots');
      },
    });
    // The session's Client declares the Tasks extension so it may listen for its task;
    // its tool calls go through the raw path (a second bridge).
    const inbound: JSONRPCMessage[] = [];
    const sessionClient = await client('alice', { tasks: true, onInbound: (m) => inbound.push(m) });
    const dispatcher = await raw('alice');
    const session: TaskEnabledSession = createTaskSessionFromClient(sessionClient, {
      endpointId: 'commonroom-bridge-alice',
      rawDispatch: dispatcher.dispatch,
      v2RequestFraming: v2Framing('alice'),
      onInputRequest,
    });
    cleanups.push(async () => {
      await session.close();
      // close() sends tasks/cancel for live tasks without waiting: a round trip lets it land first.
      await dispatcher.request('tasks/get', { taskId: 'none' });
    });
    const bob = await client('bob');

    const execution = await session.callTool('handoff_create', { summary: 'Fix the spelling', assignee: 'bob' });
    if (execution.kind !== 'task') throw new Error(`expected a task execution, got ${execution.kind}`);
    const taskId = execution.handle.taskId;
    expect(await session.task(taskId).snapshot()).toMatchObject({ taskId, status: 'working' });

    const subscription = await sessionClient.listen(taskFilter([taskId]));
    cleanups.push(() => subscription.close());
    expect(acknowledgedTaskIds(inbound)).toEqual([taskId]);
    const settled = execution.settle();

    const handoffId = (await call<HandoffTaskOutput>(bob, 'handoff_get', { task_id: taskId })).handoff.handoff_id;
    await call(bob, 'handoff_accept', { handoff_id: handoffId });
    const { key } = await call<{ key: string }>(bob, 'handoff_request_input', {
      handoff_id: handoffId,
      message: 'British or American spelling?',
    });
    // The execution learns of the request, asks the handler, answers with tasks/update.
    const input = await eventually('the answer to reach bob', async () => {
      const { handoff } = await call<HandoffTaskOutput>(bob, 'handoff_get', { handoff_id: handoffId });
      const entry = handoff.inputs.find((i) => i.key === key);
      return entry?.response ? entry : undefined;
    });
    expect(input).toMatchObject({
      response: { action: 'accept', content: { answer: 'British spelling' } },
      answered_by: 'alice',
    });
    expect(asked).toEqual([expect.objectContaining({ mode: 'form', message: 'British or American spelling?' })]);

    const result = bobsResult('Spelling is British throughout.');
    await call(bob, 'handoff_complete', { handoff_id: handoffId, result });
    const { outcome } = await settled;
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject(result);

    // A second task, cancelled by its owner: tasks/cancel through the bridge.
    const second = await session.callTool('handoff_create', { summary: 'Never mind this one', assignee: 'bob' });
    if (second.kind !== 'task') throw new Error(`expected a task execution, got ${second.kind}`);
    await second.cancel();
    expect((await second.settle()).outcome.status).toBe('cancelled');
    expect(await session.task(second.handle.taskId).snapshot()).toMatchObject({ status: 'cancelled' });
    const cancelled = await call<HandoffTaskOutput>(bob, 'handoff_get', { task_id: second.handle.taskId });
    expect(cancelled.handoff.status).toBe('cancelled');
  });

  test('a listen through the bridge receives notifications/tasks and resources/updated for what bob does over HTTP', async () => {
    const rawAlice = await raw('alice');
    const createdResult = resultOf(
      await rawAlice.request('tools/call', {
        name: 'handoff_create',
        arguments: { summary: 'Write the changelog', assignee: 'bob' },
      }),
    );
    const { taskId } = CreateTaskResultV2Schema.parse(createdResult);
    const handoffId = (createdResult._meta as Record<string, unknown>)[HANDOFF_ID_META] as string;

    const inbound: JSONRPCMessage[] = [];
    const listener = await client('alice', { tasks: true, onInbound: (m) => inbound.push(m) });
    const notifications: { method: string; params?: any }[] = [];
    listener.fallbackNotificationHandler = async (notification) => {
      notifications.push(notification);
    };
    const subscription = await listener.listen(taskFilter([taskId], { resourceSubscriptions: [HANDOFFS_URI] }));
    cleanups.push(() => subscription.close());
    expect(subscription.honoredFilter).toMatchObject({ resourceSubscriptions: [HANDOFFS_URI] });
    expect(acknowledgedTaskIds(inbound)).toEqual([taskId]);

    const result = bobsResult('Changelog written.');
    await overHttp('bob', 'handoff_accept', { handoff_id: handoffId });
    await overHttp('bob', 'handoff_complete', { handoff_id: handoffId, result });

    const completed = await eventually('a notifications/tasks with status completed', () =>
      notifications
        .map((n) => TaskStatusNotificationV2Schema.safeParse(n))
        .find((parsed) => parsed.success && parsed.data.params.status === 'completed'),
    );
    expect(completed.data?.params).toMatchObject({
      taskId,
      status: 'completed',
      result: expect.objectContaining(result),
    });
    expect(notifications).toContainEqual(
      expect.objectContaining({
        method: 'notifications/resources/updated',
        params: expect.objectContaining({ uri: HANDOFFS_URI }),
      }),
    );
    // Every frame came through with its subscription id.
    for (const frame of inbound.filter((m) => 'method' in m)) {
      expect((frame as any).params._meta['io.modelcontextprotocol/subscriptionId'], JSON.stringify(frame)).toBe(
        'listen:0',
      );
    }
  });

  test("closing one bridge's listen leaves another bridge's listen of the same participant, with the same id, open", async () => {
    // Two Clients of alice, each through its own bridge, each listening as "listen:0".
    const heard = async () => {
      const listener = await client('alice');
      const updates: unknown[] = [];
      listener.fallbackNotificationHandler = async (notification) => {
        if (notification.method === 'notifications/resources/updated') updates.push(notification);
      };
      const subscription = await listener.listen({ resourceSubscriptions: [HANDOFFS_URI] });
      cleanups.push(() => subscription.close());
      let ended = false;
      void subscription.closed.then(() => (ended = true));
      return { listener, subscription, updates, ended: () => ended };
    };
    const first = await heard();
    const second = await heard();

    await first.subscription.close();
    // A round trip through the first bridge: it handles its stdin in order, so the cancel is behind it.
    await first.listener.listTools();
    await overHttp('bob', 'handoff_create', { summary: 'Anything', assignee: 'alice' });
    await eventually('the second listen to hear of the new handoff', () => second.updates[0]);
    expect(second.ended()).toBe(false);
    expect(first.updates).toEqual([]);
  });
});
