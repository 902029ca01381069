// The room driven by the official MCP packages, unmodified, over real HTTP:
// @modelcontextprotocol/client 2.x pinned to 2026-07-28, and the Tasks
// requester of @modelcontextprotocol/ext-tasks. PRODUCT.md §8 goal 1.
import { Client, type JSONRPCMessage } from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type ApplicationInputHandler,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import {
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  TaskStatusNotificationV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { toolCatalog } from '../../generated/mcp.js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { HandoffTaskOutput } from '../../generated/types.js';
import {
  RecordingFetch,
  connectClient,
  createRawDispatcher,
  eventually,
  resultOf,
  transportFor,
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
import { PROTOCOL_VERSION, TASKS, startTestServer, type TestServer } from '../helpers/server.js';

type Who = keyof TestServer['tokens'];

/** Every tool of the operation table. */
const TOOLS = toolCatalog.map((tool) => tool.name);

let server: TestServer;
let recorder: RecordingFetch;
let cleanups: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  server = await startTestServer();
  recorder = new RecordingFetch();
  cleanups = [];
});

afterEach(async () => {
  try {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await recorder.drain();
  } finally {
    await server.stop();
  }
});

async function client(
  who: Who,
  options: { tasks?: boolean; onInbound?: (message: JSONRPCMessage) => void } = {},
): Promise<Client> {
  const connected = await connectClient(server.http.mcpUrl, server.tokens[who], { name: who, recorder, ...options });
  cleanups.push(() => connected.close());
  return connected;
}

async function raw(who: Who): Promise<RawDispatcher> {
  const dispatcher = await createRawDispatcher(server.http.mcpUrl, server.tokens[who], { name: who, recorder });
  cleanups.push(() => dispatcher.close());
  return dispatcher;
}

/** An ext-tasks requester session for `who`, on a pinned Client plus a raw request path. */
async function taskSession(
  who: Who,
  options: {
    onInputRequest?: ApplicationInputHandler['handle'];
    tasks?: boolean;
    onInbound?: (message: JSONRPCMessage) => void;
  } = {},
): Promise<{ session: TaskEnabledSession; client: Client }> {
  const sessionClient = await client(who, {
    tasks: options.tasks ?? false,
    ...(options.onInbound ? { onInbound: options.onInbound } : {}),
  });
  const dispatcher = await raw(who);
  const session = createTaskSessionFromClient(sessionClient, {
    endpointId: `commonroom-test-${who}`,
    rawDispatch: dispatcher.dispatch,
    v2RequestFraming: v2Framing(who),
    ...(options.onInputRequest ? { onInputRequest: options.onInputRequest } : {}),
  });
  // close() sends tasks/cancel for live tasks without waiting: let those land before the transports close.
  cleanups.push(async () => {
    await session.close();
    await recorder.drain();
  });
  return { session, client: sessionClient };
}

describe('the SDK Client pinned to 2026-07-28', () => {
  test('connects through server/discover and lists every tool of the operation table with its schemas and annotations', async () => {
    const alice = await client('alice');
    expect(recorder.requests[0]).toMatchObject({ method: 'server/discover', body: { method: 'server/discover' } });
    expect(alice.getProtocolEra()).toBe('modern');
    expect(alice.getNegotiatedProtocolVersion()).toBe(PROTOCOL_VERSION);
    expect(alice.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
    expect(alice.getServerVersion()).toMatchObject({ name: 'commonroom' });

    const { tools } = await alice.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object' });
      // Reading tools declare what they answer; a tool that changes something answers as its reading tool does.
      if (tool.annotations?.readOnlyHint) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      else expect(tool.outputSchema, tool.name).toBeUndefined();
      expect(tool.annotations, tool.name).toMatchObject({ title: tool.title, openWorldHint: false });
    }
  });

  test('without the Tasks extension, handoff_create is an ordinary tool result with handoff_id and task_id', async () => {
    const alice = await client('alice');
    const created = await call<HandoffTaskOutput>(alice, 'handoff_create', {
      summary: 'Proofread the intro',
      assignee: 'bob',
    });
    expect(created.handoff).toMatchObject({ status: 'open', owner: 'alice', assignee: 'bob' });
    expect(created.handoff.handoff_id).toEqual(expect.any(String));
    expect(created.handoff.task_id).toEqual(expect.any(String));
    expect(created.task).toMatchObject({ taskId: created.handoff.task_id, status: 'working' });

    // The task id is durable either way: with the extension declared, tasks/get finds it.
    const rawAlice = await raw('alice');
    const got = GetTaskResultV2Schema.parse(
      resultOf(await rawAlice.request('tasks/get', { taskId: created.handoff.task_id })),
    );
    expect(got).toMatchObject({ resultType: 'complete', taskId: created.handoff.task_id, status: 'working' });

    // Without the extension declared, tasks/get is -32021 naming it.
    const refused = await rawAlice.request('tasks/get', { taskId: created.handoff.task_id }, { tasks: false });
    expect(refused).toMatchObject({
      kind: 'error',
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } },
    });
  });

  test('a whole handoff across participants: create as a task, accept, input, answer, complete, poll, approve', async () => {
    const rawAlice = await raw('alice');
    const bob = await client('bob');
    const dave = await client('dave');

    const { taskId, done } = await wholeHandoff({
      owner: rawAlice,
      assignee: bob,
      approver: dave,
      approverName: 'dave',
    });
    // The approval leaves the task untouched.
    const after = GetTaskResultV2Schema.parse(resultOf(await rawAlice.request('tasks/get', { taskId })));
    expect(after).toMatchObject({ status: 'completed', lastUpdatedAt: done.lastUpdatedAt });

    // Every request was answered 200 the first time: no header mismatch made the client retry a call.
    expect(recorder.requests.filter((r) => r.status !== 200)).toEqual([]);
    expect(recorder.sent('tools/call')).toHaveLength(6); // create, accept, request_input, get, complete, approve
  });

  test('the owner cancels with tasks/cancel: the task and the handoff end cancelled', async () => {
    const rawAlice = await raw('alice');
    const bob = await client('bob');
    const createdResult = resultOf(
      await rawAlice.request('tools/call', {
        name: 'handoff_create',
        arguments: { summary: 'Draft the summary', assignee: 'bob' },
      }),
    );
    const { taskId } = CreateTaskResultV2Schema.parse(createdResult);
    const handoffId = (createdResult._meta as Record<string, unknown>)[HANDOFF_ID_META] as string;
    await call(bob, 'handoff_accept', { handoff_id: handoffId });

    const cancelled = resultOf(await rawAlice.request('tasks/cancel', { taskId }));
    expect(CancelTaskResultV2Schema.parse(cancelled)).toMatchObject({ resultType: 'complete' });

    const task = GetTaskResultV2Schema.parse(resultOf(await rawAlice.request('tasks/get', { taskId })));
    expect(task.status).toBe('cancelled');
    const seen = await call<HandoffTaskOutput>(bob, 'handoff_get', { handoff_id: handoffId });
    expect(seen.handoff.status).toBe('cancelled');
  });

  test('a legacy client (no versionNegotiation) is refused, and the refusal names 2026-07-28', async () => {
    const legacy = new Client({ name: 'legacy', version: '1.0.0' });
    const transport = transportFor(server.http.mcpUrl, server.tokens.alice, recorder);
    let refusal: unknown;
    try {
      await legacy.connect(transport);
    } catch (error) {
      refusal = error;
    } finally {
      await legacy.close().catch(() => undefined);
    }
    expect(recorder.requests[0]?.body?.method).toBe('initialize');
    expect(refusal, 'connect() should have failed').toBeInstanceOf(Error);
    const error = refusal as Error & { data?: unknown };
    expect(`${error.message} ${JSON.stringify(error.data ?? null)}`).toContain(PROTOCOL_VERSION);
    // On the wire: 400, -32022, and the supported versions in data.
    expect(recorder.requests[0]).toMatchObject({
      status: 400,
      response: {
        error: {
          code: -32022,
          message: expect.stringContaining(PROTOCOL_VERSION),
          data: { supported: [PROTOCOL_VERSION] },
        },
      },
    });
  });
});

describe('the Tasks requester of ext-tasks', () => {
  /** The handoff behind a task, as bob sees it. */
  const handoffOf = async (bob: Client, taskId: string) =>
    (await call<HandoffTaskOutput>(bob, 'handoff_get', { task_id: taskId })).handoff;

  test('callTool gives a task execution; bob accepts and completes; settle() gives the result bob submitted', async () => {
    const { session } = await taskSession('alice');
    const bob = await client('bob');

    const execution = await session.callTool('handoff_create', { summary: 'Tighten the conclusion', assignee: 'bob' });
    expect(execution.kind).toBe('task');
    if (execution.kind !== 'task') throw new Error('unreachable');
    const taskId = execution.handle.taskId;

    const handoff = await handoffOf(bob, taskId);
    await call(bob, 'handoff_accept', { handoff_id: handoff.handoff_id });
    const result = bobsResult('Conclusion tightened.');
    await call(bob, 'handoff_complete', { handoff_id: handoff.handoff_id, result });

    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject(result);
  });

  test('settle() through input_required: the elicitation handler answers, bob reads it, then completes', async () => {
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
    const { session } = await taskSession('alice', { onInputRequest });
    const bob = await client('bob');

    const execution = await session.callTool('handoff_create', { summary: 'Fix the spelling', assignee: 'bob' });
    if (execution.kind !== 'task') throw new Error(`expected a task execution, got ${execution.kind}`);
    const settled = execution.settle();
    const handoff = await handoffOf(bob, execution.handle.taskId);
    await call(bob, 'handoff_accept', { handoff_id: handoff.handoff_id });
    const { key } = await call<{ key: string }>(bob, 'handoff_request_input', {
      handoff_id: handoff.handoff_id,
      message: 'British or American spelling?',
    });

    // The execution sees input_required (tasks/get), asks the handler, answers with tasks/update.
    // (ext-tasks polls at the server's 5 s pollIntervalMs.)
    const input = await eventually(
      'the answer to reach bob',
      async () => {
        const { handoff: seen } = await call<HandoffTaskOutput>(bob, 'handoff_get', { handoff_id: handoff.handoff_id });
        const entry = seen.inputs.find((i) => i.key === key);
        return entry?.response ? entry : undefined;
      },
      20_000,
      100,
    );
    expect(input).toMatchObject({
      response: { action: 'accept', content: { answer: 'British spelling' } },
      answered_by: 'alice',
    });
    expect(asked).toEqual([expect.objectContaining({ mode: 'form', message: 'British or American spelling?' })]);

    const result = bobsResult('Spelling is British throughout.');
    await call(bob, 'handoff_complete', { handoff_id: handoff.handoff_id, result });
    const { outcome } = await settled;
    expect(outcome.status).toBe('completed');
    expect(resultFromTaskOutcome(outcome)).toMatchObject(result);
    expect(recorder.sent('tasks/update')).toHaveLength(1);
  });

  test('execution.cancel() sends tasks/cancel: the task ends cancelled and so does the handoff', async () => {
    const { session } = await taskSession('alice');
    const bob = await client('bob');
    const execution = await session.callTool('handoff_create', { summary: 'Never mind this one', assignee: 'bob' });
    if (execution.kind !== 'task') throw new Error(`expected a task execution, got ${execution.kind}`);
    const taskId = execution.handle.taskId;

    await execution.cancel();
    expect(recorder.sent('tasks/cancel').map((r) => r.body?.params?.taskId)).toEqual([taskId]);
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');

    const snapshot = await session.task(taskId).snapshot();
    expect(snapshot.status).toBe('cancelled');
    expect((await handoffOf(bob, taskId)).status).toBe('cancelled');
  });
});

describe('subscriptions/listen with the SDK Client', () => {
  test('a listen for taskIds (contributeTaskFilterV2) carries the task to completed in notifications/tasks', async () => {
    const rawAlice = await raw('alice');
    const bob = await client('bob');
    const createdResult = resultOf(
      await rawAlice.request('tools/call', {
        name: 'handoff_create',
        arguments: { summary: 'Write the changelog', assignee: 'bob' },
      }),
    );
    const { taskId } = CreateTaskResultV2Schema.parse(createdResult);
    const handoffId = (createdResult._meta as Record<string, unknown>)[HANDOFF_ID_META] as string;

    // A second client of alice, declaring the Tasks extension, listens.
    const inbound: JSONRPCMessage[] = [];
    const listener = await client('alice', { tasks: true, onInbound: (m) => inbound.push(m) });
    const notifications: unknown[] = [];
    listener.fallbackNotificationHandler = async (notification) => {
      notifications.push(notification);
    };
    const subscription = await listener.listen(taskFilter([taskId]));
    cleanups.push(() => subscription.close());
    expect(acknowledgedTaskIds(inbound)).toEqual([taskId]);
    const listenRequest = recorder.sent('subscriptions/listen')[0];
    expect(listenRequest?.body?.params).toMatchObject({ notifications: { taskIds: [taskId] } });

    const result = bobsResult('Changelog written.');
    await call(bob, 'handoff_accept', { handoff_id: handoffId });
    await call(bob, 'handoff_complete', { handoff_id: handoffId, result });

    const completed = await eventually('a notifications/tasks with status completed', () =>
      notifications
        .map((n) => TaskStatusNotificationV2Schema.safeParse(n))
        .find((parsed) => parsed.success && parsed.data.params.status === 'completed'),
    );
    if (!completed.success) throw new Error('unreachable');
    expect(completed.data.params).toMatchObject({
      taskId,
      status: 'completed',
      result: expect.objectContaining(result),
    });
  });

  test('the listen carries the assignee’s progress: the task, working, with its statusMessage', async () => {
    const rawAlice = await raw('alice');
    const bob = await client('bob');
    const createdResult = resultOf(
      await rawAlice.request('tools/call', {
        name: 'handoff_create',
        arguments: { summary: 'Translate the guide', assignee: 'bob' },
      }),
    );
    const { taskId } = CreateTaskResultV2Schema.parse(createdResult);
    const handoffId = (createdResult._meta as Record<string, unknown>)[HANDOFF_ID_META] as string;
    const listener = await client('alice', { tasks: true });
    const notifications: unknown[] = [];
    listener.fallbackNotificationHandler = async (notification) => {
      notifications.push(notification);
    };
    const subscription = await listener.listen(taskFilter([taskId]));
    cleanups.push(() => subscription.close());

    await call(bob, 'handoff_accept', { handoff_id: handoffId });
    await call(bob, 'handoff_progress', { handoff_id: handoffId, message: 'Chapter 2 of 5', progress: 2, total: 5 });

    const progressed = await eventually('a notifications/tasks carrying the progress', () =>
      notifications
        .map((n) => TaskStatusNotificationV2Schema.safeParse(n))
        .find((parsed) => parsed.success && parsed.data.params.statusMessage === 'Chapter 2 of 5'),
    );
    if (!progressed.success) throw new Error('unreachable');
    expect(progressed.data.params).toMatchObject({ taskId, status: 'working', statusMessage: 'Chapter 2 of 5' });
  });

  test('a task id the session may not see is left out of the acknowledgement', async () => {
    const rawAlice = await raw('alice');
    const { taskId } = CreateTaskResultV2Schema.parse(
      resultOf(await rawAlice.request('tools/call', { name: 'handoff_create', arguments: { summary: 'Private' } })),
    );
    const inbound: JSONRPCMessage[] = [];
    const carol = await client('carol', { tasks: true, onInbound: (m) => inbound.push(m) });
    const subscription = await carol.listen(taskFilter([taskId]));
    cleanups.push(() => subscription.close());
    expect(acknowledgedTaskIds(inbound)).toEqual([]);
  });

  test('an ext-tasks execution settles from notifications/tasks alone while a listen is open', async () => {
    // The session's own Client declares the Tasks extension so it may listen for taskIds;
    // its tool calls go through the raw path, so its plain callTool is never needed.
    const inbound: JSONRPCMessage[] = [];
    const { session, client: sessionClient } = await taskSession('alice', {
      tasks: true,
      onInbound: (m) => inbound.push(m),
    });
    const bob = await client('bob');

    const execution = await session.callTool('handoff_create', { summary: 'Update the figures', assignee: 'bob' });
    if (execution.kind !== 'task') throw new Error(`expected a task execution, got ${execution.kind}`);
    const taskId = execution.handle.taskId;
    const subscription = await sessionClient.listen(taskFilter([taskId]));
    cleanups.push(() => subscription.close());
    expect(acknowledgedTaskIds(inbound)).toEqual([taskId]);

    const handoffId = (await call<HandoffTaskOutput>(bob, 'handoff_get', { task_id: taskId })).handoff.handoff_id;
    const result = bobsResult('Figures updated.');
    await call(bob, 'handoff_accept', { handoff_id: handoffId });
    await call(bob, 'handoff_complete', { handoff_id: handoffId, result });

    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject(result);
    // The completion was learned from the notification: no tasks/get answered with a terminal task.
    const polledTerminal = recorder
      .sent('tasks/get')
      .filter((r) => ['completed', 'failed', 'cancelled'].includes(String((r.response as any)?.result?.status)));
    expect(polledTerminal).toEqual([]);
  });
});
