// Every kind of response and notification the MCP endpoint sends, checked
// against the official shapes of MCP 2026-07-28 (core) and the Tasks
// extension (the official SDK's schemas always, and the official JSON Schema
// files too when MCP_SCHEMA_DIR names them); and every method the
// capabilities of server/discover imply. Each tool's results against its
// outputSchema are in mcp-tool-results.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolCatalog } from '../../generated/mcp.js';
import {
  callTool,
  createHandoff,
  isMethod,
  listen,
  mcpHeaders,
  META_HANDOFF,
  nextFrame,
  openSse,
  post,
  requestMeta,
  taskRpc,
  textResult,
  toolOk,
  type Wire,
} from '../helpers/mcp-wire.js';
import { defines, expectOfficial, expectValidAgainst } from '../helpers/mcp-schemas.js';
import { rpc, startTestServer, type TestServer } from '../helpers/server.js';

const HANDOFFS_URI = 'workspace:///.room/handoffs';

let s: TestServer;
let url: string;

beforeEach(async () => {
  s = await startTestServer();
  url = s.http.mcpUrl;
});

afterEach(async () => {
  await s.stop();
});

/** A successful JSON-RPC answer: the envelope, then the result against its definition. */
function expectResult(r: { status: number; body: Wire }, document: 'core' | 'tasks', name: string, label = name): Wire {
  expect(r.status, `${label}: ${JSON.stringify(r.body)}`).toBe(200);
  expectOfficial('core', 'JSONRPCResultResponse', r.body, label);
  expectOfficial(document, name, r.body.result, label);
  return r.body.result;
}

describe('the official schemas', () => {
  it('define every shape checked here (the SDK, and the files when MCP_SCHEMA_DIR names them)', () => {
    const core = [
      'DiscoverResult',
      'DiscoverResultResponse',
      'ListToolsResult',
      'ListToolsResultResponse',
      'Tool',
      'CallToolResult',
      'CallToolResultResponse',
      'SubscriptionsAcknowledgedNotification',
      'SubscriptionsListenResult',
      'SubscriptionsListenResultResponse',
      'ResourceUpdatedNotification',
      'ListResourcesResult',
      'ListResourcesResultResponse',
      'ListResourceTemplatesResult',
      'ListResourceTemplatesResultResponse',
      'ToolAnnotations',
      'ReadResourceResult',
      'ReadResourceResultResponse',
      'JSONRPCResultResponse',
      'JSONRPCErrorResponse',
      'JSONRPCNotification',
      'HeaderMismatchError',
      'UnsupportedProtocolVersionError',
      'MissingRequiredClientCapabilityError',
      'MethodNotFoundError',
      'ParseError',
      'InvalidRequestError',
      'InvalidParamsError',
      'InputRequest',
    ];
    const tasks = [
      'CreateTaskResult',
      'GetTaskResult',
      'UpdateTaskResult',
      'CancelTaskResult',
      'TaskStatusNotification',
      'TaskSubscriptionAcknowledgedNotifications',
      'WorkingTask',
      'InputRequiredTask',
      'CompletedTask',
      'FailedTask',
      'CancelledTask',
    ];
    for (const name of core) expect(defines('core', name), `core $defs/${name}`).toBe(true);
    for (const name of tasks) expect(defines('tasks', name), `tasks $defs/${name}`).toBe(true);
  });
});

describe('discovery and tools', () => {
  it('server/discover is a DiscoverResult advertising the Tasks extension', async () => {
    const r = await rpc(url, 'server/discover', {}, { token: s.tokens.alice });
    expectOfficial('core', 'DiscoverResultResponse', r.body);
    const result = expectResult(r, 'core', 'DiscoverResult');
    expect(result.supportedVersions).toEqual(['2026-07-28']);
    expect(result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    expect(result.resultType).toBe('complete');
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: expect.any(String),
      version: expect.any(String),
    });
  });

  it('tools/list is a ListToolsResult; a reading tool declares an outputSchema that admits the refusal, a changing one declares none', async () => {
    const r = await rpc(url, 'tools/list', {}, { token: s.tokens.alice });
    expectOfficial('core', 'ListToolsResultResponse', r.body);
    const result = expectResult(r, 'core', 'ListToolsResult');
    expect(result.tools.map((t: Wire) => t.name).sort()).toEqual(toolCatalog.map((t) => t.name).sort());
    const refusal = { error: { code: 'forbidden', message: 'the session lacks the write capability' } };
    for (const tool of result.tools) {
      expectOfficial('core', 'Tool', tool, `tool ${tool.name}`);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      // A tool that changes something answers as its reading tool does, and declares no schema of its own.
      if (!tool.annotations.readOnlyHint) {
        expect(tool, tool.name).not.toHaveProperty('outputSchema');
        continue;
      }
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expectValidAgainst(tool.outputSchema, refusal, `${tool.name} admits a refusal`);
    }
  });
});

describe('the methods the advertised capabilities imply', () => {
  /**
   * What each capability of server/discover obliges the server to answer
   * (MCP 2026-07-28 server/tools, server/resources, basic/patterns/subscriptions;
   * the Tasks extension): the request and the official shape of its result.
   * A listen answers with a stream: its acknowledgement is checked instead.
   */
  type Implied = [
    method: string,
    params: () => Promise<Record<string, unknown>>,
    document: 'core' | 'tasks',
    result: string,
  ];
  const ownTask = async () => ({ taskId: (await createHandoff(s)).taskId });
  const implied: Record<string, Implied[]> = {
    tools: [
      ['tools/list', async () => ({}), 'core', 'ListToolsResult'],
      ['tools/call', async () => ({ name: 'workspace_history', arguments: {} }), 'core', 'CallToolResult'],
    ],
    resources: [
      ['resources/list', async () => ({}), 'core', 'ListResourcesResult'],
      ['resources/templates/list', async () => ({}), 'core', 'ListResourceTemplatesResult'],
      ['resources/read', async () => ({ uri: HANDOFFS_URI }), 'core', 'ReadResourceResult'],
    ],
    'resources.subscribe': [
      [
        'subscriptions/listen',
        async () => ({ notifications: { resourceSubscriptions: [HANDOFFS_URI] } }),
        'core',
        'SubscriptionsAcknowledgedNotification',
      ],
    ],
    'extensions.io.modelcontextprotocol/tasks': [
      ['tasks/get', ownTask, 'tasks', 'GetTaskResult'],
      ['tasks/update', async () => ({ ...(await ownTask()), inputResponses: {} }), 'tasks', 'UpdateTaskResult'],
      ['tasks/cancel', ownTask, 'tasks', 'CancelTaskResult'],
      [
        'subscriptions/listen',
        async () => ({ notifications: { taskIds: [(await ownTask()).taskId] } }),
        'tasks',
        'TaskSubscriptionAcknowledgedNotifications',
      ],
    ],
  };

  /** The capabilities a discover result declares, as paths: `tools`, `resources.subscribe`, `extensions.<id>`. */
  function declared(capabilities: Record<string, Wire>): string[] {
    const paths: string[] = [];
    for (const [name, value] of Object.entries(capabilities)) {
      if (name === 'extensions') {
        for (const id of Object.keys(value)) paths.push(`extensions.${id}`);
        continue;
      }
      paths.push(name);
      for (const [feature, on] of Object.entries(value)) if (on === true) paths.push(`${name}.${feature}`);
    }
    return paths.sort();
  }

  it('server/discover declares only capabilities whose methods are known here', async () => {
    const discovered = (await rpc(url, 'server/discover', {}, { token: s.tokens.alice })).body.result;
    expect(declared(discovered.capabilities)).toEqual(Object.keys(implied).sort());
  });

  it.each(Object.entries(implied).flatMap(([capability, methods]) => methods.map((m) => [capability, ...m] as const)))(
    '%s: %s answers with its official result',
    async (_capability, method, params, document, resultName) => {
      const options = { token: s.tokens.alice, tasks: document === 'tasks' };
      if (method === 'subscriptions/listen') {
        const stream = await listen(s, 'alice', ((await params()) as { notifications: Wire }).notifications, options);
        try {
          expect(stream.response.status).toBe(200);
          const ack = await nextFrame(
            stream,
            isMethod('notifications/subscriptions/acknowledged'),
            'the acknowledgement',
          );
          expectOfficial('core', 'SubscriptionsAcknowledgedNotification', ack);
          expectOfficial(document, resultName, document === 'core' ? ack : ack.params.notifications);
        } finally {
          stream.abort();
        }
        return;
      }
      const r = await rpc(url, method, await params(), options);
      const result = expectResult(r, document, resultName, method);
      expect(result.resultType, method).toBe('complete');
      const response = `${resultName}Response`;
      if (defines('core', response)) expectOfficial('core', response, r.body, method);
    },
  );

  it('resources/templates/list is an empty list that says how long it may be cached', async () => {
    const r = await rpc(url, 'resources/templates/list', {}, { token: s.tokens.alice });
    expect(r.body.result).toMatchObject({
      resourceTemplates: [],
      ttlMs: 0,
      cacheScope: 'private',
      resultType: 'complete',
    });
  });
});

describe('the Tasks extension', () => {
  it('CreateTaskResult, GetTaskResult in every status, UpdateTaskResult and CancelTaskResult', async () => {
    const create = async (summary: string) => {
      const r = await callTool(s, 'alice', 'handoff_create', { summary, assignee: 'bob' }, { tasks: true });
      const result = expectResult(r, 'tasks', 'CreateTaskResult');
      expect(result.resultType).toBe('task');
      return { taskId: result.taskId as string, handoffId: result._meta[META_HANDOFF] as string };
    };
    const get = async (taskId: string, status: string, specific: string) => {
      const r = await taskRpc(s, 'alice', 'tasks/get', { taskId });
      const result = expectResult(r, 'tasks', 'GetTaskResult', `tasks/get (${status})`);
      expect(result.status).toBe(status);
      const { resultType: _r, _meta: _m, ...task } = result;
      expectOfficial('tasks', specific, task, `tasks/get (${status})`);
      return result;
    };

    const a = await create('Working, then input, then completed');
    await get(a.taskId, 'working', 'WorkingTask');
    await toolOk(s, 'bob', 'handoff_accept', { handoff_id: a.handoffId });
    await toolOk(s, 'bob', 'handoff_request_input', {
      handoff_id: a.handoffId,
      key: 'colour',
      message: 'Which colour?',
    });
    const waiting = await get(a.taskId, 'input_required', 'InputRequiredTask');
    for (const [key, request] of Object.entries(waiting.inputRequests)) {
      expectOfficial('core', 'InputRequest', request, `inputRequests.${key}`);
      expectOfficial('core', 'ElicitRequest', request, `inputRequests.${key}`);
    }
    const update = await taskRpc(s, 'alice', 'tasks/update', {
      taskId: a.taskId,
      inputResponses: { colour: { action: 'accept', content: { answer: 'green' } } },
    });
    expectResult(update, 'tasks', 'UpdateTaskResult');
    await toolOk(s, 'bob', 'handoff_complete', { handoff_id: a.handoffId, result: textResult('Green it is') });
    const completed = await get(a.taskId, 'completed', 'CompletedTask');
    expectOfficial('core', 'CallToolResult', completed.result, 'the completed task result');

    const b = await create('Fails');
    await toolOk(s, 'bob', 'handoff_accept', { handoff_id: b.handoffId });
    await toolOk(s, 'bob', 'handoff_complete', {
      handoff_id: b.handoffId,
      error: { code: -32000, message: 'could not do it' },
    });
    const failed = await get(b.taskId, 'failed', 'FailedTask');
    expect(failed.error).toMatchObject({ code: -32000, message: 'could not do it' });

    const c = await create('Cancelled');
    const cancel = await taskRpc(s, 'alice', 'tasks/cancel', { taskId: c.taskId });
    expectResult(cancel, 'tasks', 'CancelTaskResult');
    await get(c.taskId, 'cancelled', 'CancelledTask');
    // Cancelling a terminal task is acknowledged the same way.
    expectResult(await taskRpc(s, 'alice', 'tasks/cancel', { taskId: a.taskId }), 'tasks', 'CancelTaskResult');
  });
});

describe('streams', () => {
  it('the listen acknowledgement, task and resource notifications, and the final result on shutdown', async () => {
    const { handoffId, taskId } = await createHandoff(s, 'alice', { summary: 'Streamed', assignee: 'bob' });
    const stream = await listen(
      s,
      'alice',
      { taskIds: [taskId], resourceSubscriptions: [HANDOFFS_URI] },
      { tasks: true, id: 41 },
    );
    try {
      const ack = await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
      expectOfficial('core', 'SubscriptionsAcknowledgedNotification', ack);
      expectOfficial('tasks', 'TaskSubscriptionAcknowledgedNotifications', ack.params.notifications);

      await toolOk(s, 'bob', 'handoff_accept', { handoff_id: handoffId });
      await toolOk(s, 'bob', 'handoff_request_input', { handoff_id: handoffId, message: 'Sure?' });
      await toolOk(s, 'bob', 'handoff_get', { handoff_id: handoffId });
      const pending = (await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result.inputRequests;
      await taskRpc(s, 'alice', 'tasks/update', {
        taskId,
        inputResponses: Object.fromEntries(
          Object.keys(pending).map((key) => [key, { action: 'accept', content: { answer: 'yes' } }]),
        ),
      });
      await toolOk(s, 'bob', 'handoff_complete', { handoff_id: handoffId, result: textResult('Done') });
      await nextFrame(
        stream,
        (f) => f.method === 'notifications/tasks' && f.params.status === 'completed',
        'the completed task',
      );
      await nextFrame(stream, isMethod('notifications/resources/updated'), 'resources/updated');

      const statuses = new Set<string>();
      for (const frame of stream.frames) {
        expectOfficial('core', 'JSONRPCNotification', frame, frame.method);
        if (frame.method === 'notifications/tasks') {
          expectOfficial('tasks', 'TaskStatusNotification', frame, `notifications/tasks (${frame.params.status})`);
          statuses.add(frame.params.status);
        } else if (frame.method === 'notifications/resources/updated') {
          expectOfficial('core', 'ResourceUpdatedNotification', frame);
        }
      }
      expect([...statuses].sort()).toEqual(['completed', 'input_required', 'working']);

      const count = stream.frames.length;
      const closing = s.http.close();
      await expect.poll(() => stream.done, { timeout: 15_000 }).toBe(true);
      await closing;
      expect(stream.frames).toHaveLength(count + 1);
      const final = stream.frames.at(-1);
      expectOfficial('core', 'SubscriptionsListenResultResponse', final);
      expectOfficial('core', 'SubscriptionsListenResult', final.result);
      expect(final.id).toBe(41);
    } finally {
      stream.abort();
    }
  });

  it('the legacy GET /mcp stream sends ResourceUpdatedNotifications', async () => {
    await rpc(url, 'resources/subscribe', { uri: HANDOFFS_URI }, { token: s.tokens.alice });
    const legacy = await openSse(url, {
      method: 'GET',
      headers: { authorization: `Bearer ${s.tokens.alice}`, accept: 'text/event-stream' },
    });
    try {
      await createHandoff(s);
      const frame = await nextFrame(legacy, isMethod('notifications/resources/updated'), 'resources/updated');
      expectOfficial('core', 'ResourceUpdatedNotification', frame);
      expectOfficial('core', 'JSONRPCNotification', frame);
    } finally {
      legacy.abort();
    }
  });
});

describe('resources', () => {
  it('resources/list is a ListResourcesResult; each resources/read is a ReadResourceResult', async () => {
    await createHandoff(s);
    const list = await rpc(url, 'resources/list', {}, { token: s.tokens.alice });
    expectOfficial('core', 'ListResourcesResultResponse', list.body);
    const result = expectResult(list, 'core', 'ListResourcesResult');
    expect(result.resources.length).toBe(4);
    for (const resource of result.resources) {
      const r = await rpc(url, 'resources/read', { uri: resource.uri }, { token: s.tokens.alice });
      expectOfficial('core', 'ReadResourceResultResponse', r.body, resource.uri);
      const read = expectResult(r, 'core', 'ReadResourceResult', resource.uri);
      expect(read.contents[0]).toMatchObject({ uri: resource.uri, mimeType: resource.mimeType });
    }
  });
});

describe('error responses', () => {
  const discover = (meta: Record<string, unknown> | null = requestMeta()) => ({
    jsonrpc: '2.0',
    id: 5,
    method: 'server/discover',
    params: meta === null ? {} : { _meta: meta },
  });
  const headers = () => mcpHeaders('server/discover', s.tokens.alice);
  const ownTask = async () => (await createHandoff(s)).taskId;

  /**
   * Each error the endpoint answers: how to provoke it, the official shape of
   * the whole response (when the schema defines one) and of its error object.
   * Every one is also a JSONRPCErrorResponse.
   */
  const cases: [
    label: string,
    provoke: () => Promise<{ body: Wire }>,
    response: string | null,
    error: string | null,
  ][] = [
    [
      'missing Mcp-Method',
      () => post(url, discover(), mcpHeaders('server/discover', s.tokens.alice, { 'mcp-method': null })),
      'HeaderMismatchError',
      null,
    ],
    [
      'missing MCP-Protocol-Version',
      () => post(url, discover(), mcpHeaders('server/discover', s.tokens.alice, { 'mcp-protocol-version': null })),
      'HeaderMismatchError',
      null,
    ],
    [
      'wrong Mcp-Name',
      () =>
        rpc(
          url,
          'tools/call',
          { name: 'workspace_history', arguments: {} },
          { token: s.tokens.alice, headers: { 'mcp-name': 'x' } },
        ),
      'HeaderMismatchError',
      null,
    ],
    [
      '_meta protocolVersion unlike the header',
      () =>
        rpc(
          url,
          'server/discover',
          {},
          { token: s.tokens.alice, meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
        ),
      'HeaderMismatchError',
      null,
    ],
    [
      'unsupported protocol version',
      () =>
        post(
          url,
          discover({ ...requestMeta(), 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }),
          mcpHeaders('server/discover', s.tokens.alice, { 'mcp-protocol-version': '2025-11-25' }),
        ),
      'UnsupportedProtocolVersionError',
      null,
    ],
    [
      'initialize from a legacy client',
      () =>
        post(
          url,
          {
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
          },
          {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${s.tokens.alice}`,
          },
        ),
      'UnsupportedProtocolVersionError',
      null,
    ],
    [
      'tasks/get without the extension',
      async () => taskRpc(s, 'alice', 'tasks/get', { taskId: await ownTask() }, { tasks: false }),
      'MissingRequiredClientCapabilityError',
      null,
    ],
    [
      'tasks/update without the extension',
      async () =>
        taskRpc(s, 'alice', 'tasks/update', { taskId: await ownTask(), inputResponses: {} }, { tasks: false }),
      'MissingRequiredClientCapabilityError',
      null,
    ],
    [
      'tasks/cancel without the extension',
      async () => taskRpc(s, 'alice', 'tasks/cancel', { taskId: await ownTask() }, { tasks: false }),
      'MissingRequiredClientCapabilityError',
      null,
    ],
    [
      'listen for taskIds without the extension',
      async () =>
        rpc(url, 'subscriptions/listen', { notifications: { taskIds: [await ownTask()] } }, { token: s.tokens.alice }),
      'MissingRequiredClientCapabilityError',
      null,
    ],
    ['unknown method', () => rpc(url, 'prompts/list', {}, { token: s.tokens.alice }), null, 'MethodNotFoundError'],
    ['malformed JSON', () => post(url, '{"jsonrpc":', headers()), null, 'ParseError'],
    ['a batch', () => post(url, [discover()], headers()), null, 'InvalidRequestError'],
    [
      'no jsonrpc member',
      () => post(url, { id: 5, method: 'server/discover', params: { _meta: requestMeta() } }, headers()),
      null,
      'InvalidRequestError',
    ],
    [
      'a method that is not a string',
      () => post(url, { ...discover(), method: 5 }, headers()),
      null,
      'InvalidRequestError',
    ],
    ['no _meta', () => post(url, discover(null), headers()), null, 'InvalidParamsError'],
    [
      'tools/call arguments not an object',
      () => rpc(url, 'tools/call', { name: 'handoff_create', arguments: 7 }, { token: s.tokens.alice }),
      null,
      'InvalidParamsError',
    ],
    [
      'an unknown tool',
      () => rpc(url, 'tools/call', { name: 'no_such_tool', arguments: {} }, { token: s.tokens.alice }),
      null,
      'InvalidParamsError',
    ],
    ['an unknown task', () => taskRpc(s, 'carol', 'tasks/get', { taskId: 'tk_nope' }), null, 'InvalidParamsError'],
    [
      'an unknown resource',
      () => rpc(url, 'resources/read', { uri: 'workspace:///nope' }, { token: s.tokens.alice }),
      null,
      'InvalidParamsError',
    ],
    ['401 without a token', () => rpc(url, 'server/discover', {}, { token: null }), null, null],
    ['401 with a bad token', () => rpc(url, 'server/discover', {}, { token: 'cr_bad' }), null, null],
    [
      '403 from a foreign origin',
      () => rpc(url, 'server/discover', {}, { token: s.tokens.alice, headers: { origin: 'https://evil.example' } }),
      null,
      null,
    ],
    [
      '413 for a body over 1 MiB',
      () =>
        post(
          url,
          {
            jsonrpc: '2.0',
            id: 9,
            method: 'tools/call',
            params: { name: 'handoff_create', arguments: { summary: 'y'.repeat(1_100_000) }, _meta: requestMeta() },
          },
          mcpHeaders('tools/call', s.tokens.alice, { 'mcp-name': 'handoff_create' }),
        ),
      null,
      null,
    ],
  ];

  it.each(cases)('%s', async (label, provoke, response, error) => {
    const r = await provoke();
    expect(r.body, `${label}: the answer should be JSON`).toBeTruthy();
    expect(r.body, label).not.toHaveProperty('result');
    expectOfficial('core', 'JSONRPCErrorResponse', r.body, label);
    if (response) expectOfficial('core', response, r.body, label);
    if (error) expectOfficial('core', error, r.body.error, label);
  });
});
