// The MCP endpoint over real HTTP with raw fetch: every transport and
// protocol rule of MCP 2026-07-28 + the Tasks extension this server keeps
// (design/MCP-NOTES.md, handoffs-design-note.md "MCP", PRODUCT.md §4–§5).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Capability } from '../../generated/types.js';
import {
  createSession,
  listSessions,
  LOCAL_OPERATOR,
  proposeChange,
  revokeSession,
  withdrawProposal,
} from '../helpers/engine.js';
import {
  base64Header,
  callTool,
  createHandoff,
  isMethod,
  listen,
  mcpHeaders,
  META_HANDOFF,
  META_SUBSCRIPTION,
  nextFrame,
  openSse,
  post,
  requestMeta,
  taskRpc,
  textResult,
  toolOk,
  type Wire,
} from '../helpers/mcp-wire.js';
import { PROTOCOL_VERSION, rpc, rpcRequest, startTestServer, TASKS, type TestServer } from '../helpers/server.js';

const HANDOFFS_URI = 'workspace:///.room/handoffs';
const ARTIFACT_URI = 'workspace:///room.md';

let s: TestServer;
let url: string;

beforeEach(async () => {
  s = await startTestServer();
  url = s.http.mcpUrl;
});

afterEach(async () => {
  await s.stop();
});

/** The HTTP status and JSON-RPC error of a refused request, with a message that says what was wrong. */
function expectRpcError(
  r: { status: number; body: Wire },
  status: number,
  code: number,
  message: RegExp,
): { code: number; message: string; data?: Wire } {
  expect({ status: r.status, code: r.body?.error?.code }, JSON.stringify(r.body)).toEqual({ status, code });
  expect(r.body.jsonrpc).toBe('2.0');
  expect(r.body).not.toHaveProperty('result');
  expect(r.body.error.message).toMatch(message);
  return r.body.error;
}

/** A server/discover request; `meta: null` leaves _meta out. */
const discoverBody = (meta: Record<string, unknown> | null = requestMeta()) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: meta === null ? {} : { _meta: meta },
});

describe('transport headers and protocol version', () => {
  it('takes POST /mcp as the router always did: any case, a trailing slash or not, a query string aside', async () => {
    for (const path of ['/mcp/', '/MCP', '/mcp?from=test']) {
      const r = await rpc(new URL(path, url).href, 'server/discover', {}, { token: s.tokens.alice });
      expect({ path, status: r.status, versions: r.body.result?.supportedVersions }).toEqual({
        path,
        status: 200,
        versions: ['2026-07-28'],
      });
    }
    const elsewhere = await fetch(new URL('/mcpx', url), { method: 'POST' });
    expect(elsewhere.status).toBe(404);
  });

  it('refuses a request without MCP-Protocol-Version: 400, -32020', async () => {
    const r = await post(
      url,
      discoverBody(),
      mcpHeaders('server/discover', s.tokens.alice, { 'mcp-protocol-version': null }),
    );
    expectRpcError(r, 400, -32020, /MCP-Protocol-Version/i);
  });

  it('refuses an unsupported version with the supported list: 400, -32022', async () => {
    const r = await post(
      url,
      discoverBody({ ...requestMeta(), 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }),
      mcpHeaders('server/discover', s.tokens.alice, { 'mcp-protocol-version': '2025-11-25' }),
    );
    const error = expectRpcError(r, 400, -32022, /2025-11-25/);
    expect(error.message).toContain(PROTOCOL_VERSION);
    expect(error.data).toEqual({ supported: [PROTOCOL_VERSION], requested: '2025-11-25' });
  });

  it('answers initialize sent with the 2026-07-28 headers as a method it does not have: 404, -32601', async () => {
    const r = await post(
      url,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
          _meta: requestMeta(),
        },
      },
      mcpHeaders('initialize', s.tokens.alice),
    );
    expectRpcError(r, 404, -32601, /^method not found: initialize$/);
    expect(r.body.id).toBe(0);
  });

  it('answers initialize naming an older version in its header with the versions it speaks: 400, -32022', async () => {
    const r = await post(
      url,
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } },
      mcpHeaders('initialize', s.tokens.alice, { 'mcp-protocol-version': '2025-11-25' }),
    );
    const error = expectRpcError(r, 400, -32022, new RegExp(PROTOCOL_VERSION));
    expect(error.data).toEqual({ supported: [PROTOCOL_VERSION], requested: '2025-11-25' });
  });

  it('refuses initialize as a legacy client sends it (no MCP headers), naming 2026-07-28', async () => {
    const r = await post(
      url,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1.0.0' } },
      },
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${s.tokens.alice}`,
      },
    );
    const error = expectRpcError(r, 400, -32022, new RegExp(PROTOCOL_VERSION));
    expect(error.data).toMatchObject({ supported: [PROTOCOL_VERSION] });
    expect(r.body.id).toBe(0);
  });

  it('refuses a missing Mcp-Method, and one that does not match the body: 400, -32020', async () => {
    const missing = await post(
      url,
      discoverBody(),
      mcpHeaders('server/discover', s.tokens.alice, { 'mcp-method': null }),
    );
    expectRpcError(missing, 400, -32020, /Mcp-Method/i);
    const wrong = await post(url, discoverBody(), mcpHeaders('tools/list', s.tokens.alice));
    expectRpcError(wrong, 400, -32020, /Mcp-Method/i);
  });

  it('refuses tools/call without Mcp-Name or with another name: 400, -32020', async () => {
    const params = { name: 'workspace_history', arguments: {} };
    const missing = await rpc(url, 'tools/call', params, { token: s.tokens.alice, headers: { 'mcp-name': null } });
    expectRpcError(missing, 400, -32020, /Mcp-Name/i);
    const wrong = await rpc(url, 'tools/call', params, {
      token: s.tokens.alice,
      headers: { 'mcp-name': 'handoff_get' },
    });
    expectRpcError(wrong, 400, -32020, /Mcp-Name/i);
  });

  it('refuses tasks/get, tasks/update and tasks/cancel without Mcp-Name or with another task id: 400, -32020', async () => {
    const { taskId } = await createHandoff(s);
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const missing = await taskRpc(s, 'alice', method, params, { headers: { 'mcp-name': null } });
      expectRpcError(missing, 400, -32020, /Mcp-Name/i);
      const wrong = await taskRpc(s, 'alice', method, params, { headers: { 'mcp-name': `${taskId}x` } });
      expectRpcError(wrong, 400, -32020, /Mcp-Name/i);
    }
    // Nothing above reached the task.
    expect((await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result.status).toBe('working');
  });

  it('a taskId that is no string is refused by the params (-32602, naming taskId), not as a header mismatch', async () => {
    const r = await taskRpc(s, 'alice', 'tasks/get', { taskId: 42 } as never, { headers: { 'mcp-name': '42' } });
    expectRpcError(r, 400, -32602, /taskId/);
  });

  it('refuses resources/read without Mcp-Name (its uri): 400, -32020', async () => {
    const r = await rpc(
      url,
      'resources/read',
      { uri: ARTIFACT_URI },
      { token: s.tokens.alice, headers: { 'mcp-name': null } },
    );
    expectRpcError(r, 400, -32020, /Mcp-Name/i);
  });

  it('compares header values case-sensitively', async () => {
    const r = await rpc(url, 'tools/list', {}, { token: s.tokens.alice, headers: { 'mcp-method': 'Tools/List' } });
    expectRpcError(r, 400, -32020, /Mcp-Method/i);
  });

  it('accepts Base64-wrapped header values that decode to the right value, and refuses ones that do not', async () => {
    const discover = await rpc(
      url,
      'server/discover',
      {},
      {
        token: s.tokens.alice,
        headers: { 'mcp-method': base64Header('server/discover') },
      },
    );
    expect(discover.status, JSON.stringify(discover.body)).toBe(200);
    expect(discover.body.result.supportedVersions).toEqual([PROTOCOL_VERSION]);

    const history = await rpc(
      url,
      'tools/call',
      { name: 'workspace_history', arguments: {} },
      {
        token: s.tokens.alice,
        headers: { 'mcp-method': base64Header('tools/call'), 'mcp-name': base64Header('workspace_history') },
      },
    );
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect(history.body.result.isError).not.toBe(true);

    const { taskId } = await createHandoff(s);
    const task = await taskRpc(s, 'alice', 'tasks/get', { taskId }, { headers: { 'mcp-name': base64Header(taskId) } });
    expect(task.status, JSON.stringify(task.body)).toBe(200);
    expect(task.body.result.taskId).toBe(taskId);

    const wrong = await rpc(
      url,
      'tools/call',
      { name: 'workspace_history', arguments: {} },
      {
        token: s.tokens.alice,
        headers: { 'mcp-name': base64Header('handoff_get') },
      },
    );
    expectRpcError(wrong, 400, -32020, /Mcp-Name/i);

    for (const garbled of ['=?base64?%%%?=', '=?base64?====?=', '=?base64?c2VydmVy-_?=']) {
      const refused = await rpc(
        url,
        'server/discover',
        {},
        { token: s.tokens.alice, headers: { 'mcp-method': garbled } },
      );
      expectRpcError(refused, 400, -32020, /base64/i);
    }
    // Padding only: the version header must not read as an empty (unsupported) version.
    const padding = await rpc(
      url,
      'server/discover',
      {},
      { token: s.tokens.alice, headers: { 'mcp-protocol-version': '=?base64?====?=' } },
    );
    expectRpcError(padding, 400, -32020, /base64/i);
  });

  it('refuses a _meta protocolVersion that differs from the header: 400, -32020', async () => {
    const r = await rpc(
      url,
      'server/discover',
      {},
      {
        token: s.tokens.alice,
        meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' },
      },
    );
    expectRpcError(r, 400, -32020, /protocolVersion/);
  });

  it('refuses a request without _meta or without clientCapabilities: 400, -32602', async () => {
    const noMeta = await post(url, discoverBody(null), mcpHeaders('server/discover', s.tokens.alice));
    expectRpcError(noMeta, 400, -32602, /_meta/);
    const { 'io.modelcontextprotocol/clientCapabilities': _dropped, ...withoutCapabilities } = requestMeta();
    const noCapabilities = await post(
      url,
      discoverBody(withoutCapabilities),
      mcpHeaders('server/discover', s.tokens.alice),
    );
    expectRpcError(noCapabilities, 400, -32602, /clientCapabilities/);
  });

  it('answers an unknown method with 404, -32601, naming it', async () => {
    const r = await rpc(url, 'prompts/list', {}, { token: s.tokens.alice });
    expectRpcError(r, 404, -32601, /prompts\/list/);
  });

  it('answers malformed JSON with 400, -32700', async () => {
    const r = await post(url, '{"jsonrpc": "2.0", "id": 1, "method": ', mcpHeaders('server/discover', s.tokens.alice));
    expectRpcError(r, 400, -32700, /JSON/);
  });

  it('answers what is not one JSON-RPC request object with 400, -32600', async () => {
    const headers = mcpHeaders('server/discover', s.tokens.alice);
    const batch = await post(url, [discoverBody(), { ...discoverBody(), id: 2 }], headers);
    expectRpcError(batch, 400, -32600, /batch|one JSON-RPC object/i);
    const { jsonrpc: _omitted, ...noVersion } = discoverBody();
    const missingJsonrpc = await post(url, noVersion, headers);
    expectRpcError(missingJsonrpc, 400, -32600, /jsonrpc/);
    const numericMethod = await post(url, { ...discoverBody(), method: 42 }, headers);
    expectRpcError(numericMethod, 400, -32600, /method/);
    // An id JSON.parse cannot hold exactly (2^53 + 1 reads as 2^53) would come back changed: refused instead.
    for (const id of ['9007199254740993', '1e300', '1.5']) {
      const body = JSON.stringify(discoverBody()).replace(/"id":\d+/, `"id":${id}`);
      expectRpcError(
        await post(url, body, headers),
        400,
        -32600,
        /^id must be a string or an integer from -\(2\^53 - 1\) to 2\^53 - 1$/,
      );
    }
  });

  it('refuses a body over 1 MiB with 413 and a JSON-RPC error', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'handoff_create', arguments: { summary: 'x'.repeat(1024 * 1024) }, _meta: requestMeta() },
    };
    const r = await post(url, body, mcpHeaders('tools/call', s.tokens.alice, { 'mcp-name': 'handoff_create' }));
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({
      jsonrpc: '2.0',
      error: { code: expect.any(Number), message: expect.stringMatching(/larger than/) },
    });
    expect(r.body).not.toHaveProperty('result');
  });

  it('refuses the Origin of another site with 403, and allows its own origin or none', async () => {
    const foreign = await rpc(
      url,
      'server/discover',
      {},
      { token: s.tokens.alice, headers: { origin: 'https://evil.example' } },
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({
      jsonrpc: '2.0',
      error: { message: expect.stringContaining('https://evil.example') },
    });

    const own = await rpc(url, 'server/discover', {}, { token: s.tokens.alice, headers: { origin: s.http.baseUrl } });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const none = await rpc(url, 'server/discover', {}, { token: s.tokens.alice });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
  });

  it('answers 401 with WWW-Authenticate: Bearer without a token, with a bad one, and with a revoked session', async () => {
    const expect401 = (r: { status: number; headers: Headers; body: Wire }) => {
      expect(r.status, JSON.stringify(r.body)).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(r.body).toMatchObject({
        jsonrpc: '2.0',
        error: { code: expect.any(Number), message: expect.stringMatching(/token/) },
      });
    };
    expect401(await rpc(url, 'server/discover', {}, { token: null }));
    expect401(await rpc(url, 'server/discover', {}, { token: 'cr_not-a-real-token' }));

    expect((await rpc(url, 'server/discover', {}, { token: s.tokens.bob })).status).toBe(200);
    const [session] = listSessions(s.room, LOCAL_OPERATOR, { participant: 'bob' }).sessions;
    revokeSession(s.room, LOCAL_OPERATOR, { session_id: session!.session_id });
    expect401(await rpc(url, 'server/discover', {}, { token: s.tokens.bob }));
  });

  it('answers 401 at once to a session that was let in a moment ago and has since expired', async () => {
    const { token } = createSession(s.room, LOCAL_OPERATOR, {
      participant: 'alice',
      capabilities: ['read'],
      expires_in_seconds: 60,
    });
    expect((await rpc(url, 'server/discover', {}, { token })).status).toBe(200);
    expect((await rpc(url, 'server/discover', {}, { token })).status).toBe(200);
    s.clock.advance(60_000);
    const r = await rpc(url, 'server/discover', {}, { token });
    expect(r.status, JSON.stringify(r.body)).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('answers a notification POST with 202 and no body', async () => {
    const r = await post(
      url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99, _meta: requestMeta() } },
      mcpHeaders('notifications/cancelled', s.tokens.alice),
    );
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('refuses a request sent without an id (400, -32600, no id), and does nothing', async () => {
    const before = (await rpc(url, 'tools/call', { name: 'handoff_list', arguments: {} }, { token: s.tokens.alice }))
      .body.result.structuredContent.handoffs.length;
    const r = await post(
      url,
      {
        jsonrpc: '2.0',
        method: 'tools/call',
        params: { name: 'handoff_create', arguments: { summary: 'never made' }, _meta: requestMeta() },
      },
      { ...mcpHeaders('tools/call', s.tokens.alice), 'mcp-name': 'handoff_create' },
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'tools/call is a request: it needs an id; nothing was done' },
    });
    const after = (await rpc(url, 'tools/call', { name: 'handoff_list', arguments: {} }, { token: s.tokens.alice }))
      .body.result.structuredContent.handoffs.length;
    expect(after).toBe(before);
  });

  it('refuses a notification sent with an id (400, -32600), where it was "method not found"', async () => {
    const r = await post(
      url,
      { jsonrpc: '2.0', id: 7, method: 'notifications/cancelled', params: { requestId: 1, _meta: requestMeta() } },
      mcpHeaders('notifications/cancelled', s.tokens.alice),
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'notifications/cancelled is a notification: it takes no id' },
    });
  });

  it('ignores an Mcp-Session-Id header and never mints or echoes one', async () => {
    const r = await rpc(
      url,
      'tools/list',
      {},
      { token: s.tokens.alice, headers: { 'mcp-session-id': 'session-from-elsewhere' } },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result.tools.length).toBeGreaterThan(0);
    expect(r.headers.get('mcp-session-id')).toBeNull();
    const plain = await rpc(url, 'server/discover', {}, { token: s.tokens.alice });
    expect(plain.headers.get('mcp-session-id')).toBeNull();
  });
});

describe('the Tasks extension is declared per request', () => {
  it('refuses tasks/get, tasks/update and tasks/cancel without it: 400, -32021 naming the extension', async () => {
    const { taskId } = await createHandoff(s);
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const r = await taskRpc(s, 'alice', method, params, { tasks: false });
      const error = expectRpcError(r, 400, -32021, new RegExp(TASKS));
      expect(error.data.requiredCapabilities.extensions, method).toHaveProperty([TASKS]);
    }
    // Nothing was cancelled by the refused call.
    expect((await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result.status).toBe('working');
  });

  it('refuses subscriptions/listen asking for taskIds without it: -32021', async () => {
    const { taskId } = await createHandoff(s);
    const r = await rpc(
      url,
      'subscriptions/listen',
      { notifications: { taskIds: [taskId] } },
      { token: s.tokens.alice },
    );
    const error = expectRpcError(r, 400, -32021, new RegExp(TASKS));
    expect(error.data.requiredCapabilities.extensions).toHaveProperty([TASKS]);
    expect(r.headers.get('content-type')).not.toMatch(/event-stream/);
  });

  it("answers tasks/get of another participant's task exactly like a made-up id: -32602 unknown task", async () => {
    const { handoffId, taskId } = await createHandoff(s, 'alice', { summary: 'Private work', assignee: 'bob' });
    const others = await taskRpc(s, 'carol', 'tasks/get', { taskId });
    const madeUp = await taskRpc(s, 'carol', 'tasks/get', { taskId: 'tk_made_up_entirely' });
    expect(others.body.error).toMatchObject({ code: -32602, message: 'unknown task' });
    expect(madeUp.body.error).toMatchObject({ code: -32602, message: 'unknown task' });
    expect({ status: others.status, error: others.body.error }).toEqual({
      status: madeUp.status,
      error: madeUp.body.error,
    });
    // The owner, and the assignee once accepted, do see it.
    expect((await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result.taskId).toBe(taskId);
    await toolOk(s, 'bob', 'handoff_accept', { handoff_id: handoffId });
    expect((await taskRpc(s, 'bob', 'tasks/get', { taskId })).body.result.taskId).toBe(taskId);
  });
});

describe('tools/call', () => {
  it('handoff_create without the extension: an ordinary tool result holding the handoff with its ids', async () => {
    const r = await callTool(s, 'alice', 'handoff_create', { summary: 'Draft the FAQ', assignee: 'bob' });
    expect(r.status).toBe(200);
    const result = r.body.result;
    expect(result.resultType).toBe('complete');
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent.handoff).toMatchObject({
      handoff_id: expect.any(String),
      task_id: expect.any(String),
      status: 'open',
      owner: 'alice',
      assignee: 'bob',
    });
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    // The task id is durable either way.
    const task = await taskRpc(s, 'alice', 'tasks/get', { taskId: result.structuredContent.handoff.task_id });
    expect(task.body.result).toMatchObject({ status: 'working' });
  });

  it('handoff_create with the extension: a CreateTaskResult with the handoff id in _meta', async () => {
    const r = await callTool(
      s,
      'alice',
      'handoff_create',
      { summary: 'Draft the FAQ', assignee: 'bob' },
      { tasks: true },
    );
    expect(r.status).toBe(200);
    const result = r.body.result;
    expect(result).toMatchObject({ resultType: 'task', taskId: expect.any(String), status: 'working' });
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(Number.isInteger(result.pollIntervalMs)).toBe(true);
    expect(result).not.toHaveProperty('content');
    const handoffId = result._meta[META_HANDOFF];
    expect(handoffId).toEqual(expect.any(String));
    const task = await taskRpc(s, 'alice', 'tasks/get', { taskId: result.taskId });
    expect(task.body.result).toMatchObject({ resultType: 'complete', taskId: result.taskId, status: 'working' });
    const handoff = await toolOk(s, 'alice', 'handoff_get', { handoff_id: handoffId });
    expect(handoff.handoff.task_id).toBe(result.taskId);
  });

  it('a refused domain action is a tool result with isError and a structured error', async () => {
    const carol = await callTool(s, 'carol', 'handoff_create', { summary: 'Carol cannot write' });
    expect(carol.status).toBe(200);
    expect(carol.body).not.toHaveProperty('error');
    expect(carol.body.result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'forbidden', message: expect.stringMatching(/write/) } },
    });

    const { handoffId } = await createHandoff(s, 'alice', { summary: 'For bob only', assignee: 'bob' });
    const alice = await callTool(s, 'alice', 'handoff_accept', { handoff_id: handoffId });
    expect(alice.status).toBe(200);
    expect(alice.body.result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'forbidden', message: expect.stringMatching(/bob/) } },
    });
    expect(alice.body.result.content[0].text).toMatch(/bob/);
  });

  it('a malformed tools/call (arguments not an object) is a JSON-RPC -32602', async () => {
    const r = await rpc(
      url,
      'tools/call',
      { name: 'handoff_create', arguments: 'summary=hello' },
      { token: s.tokens.alice },
    );
    expect(r.body).not.toHaveProperty('result');
    expect(r.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/arguments/) });
  });
});

describe('a whole handoff over raw fetch', () => {
  it('create → accept → request input → answer → complete → approve', async () => {
    const created = await callTool(
      s,
      'alice',
      'handoff_create',
      { summary: 'Pick a title', assignee: 'bob' },
      { tasks: true },
    );
    const { taskId } = created.body.result;
    const handoffId = created.body.result._meta[META_HANDOFF];

    const accepted = await toolOk(s, 'bob', 'handoff_accept', { handoff_id: handoffId });
    expect(accepted.handoff.status).toBe('accepted');
    expect(accepted.task.status).toBe('working');

    const asked = await toolOk(s, 'bob', 'handoff_request_input', {
      handoff_id: handoffId,
      key: 'tone',
      message: 'Formal or casual?',
    });
    expect(asked.key).toBe('tone');

    const waiting = await taskRpc(s, 'alice', 'tasks/get', { taskId });
    expect(waiting.body.result).toMatchObject({
      resultType: 'complete',
      taskId,
      status: 'input_required',
      inputRequests: {
        tone: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Formal or casual?', requestedSchema: expect.any(Object) },
        },
      },
    });

    // A bad answer is named as the protocol names it, never by the operation's own field.
    const refused = await taskRpc(s, 'alice', 'tasks/update', {
      taskId,
      inputResponses: { tone: { action: 'maybe' } },
    });
    expect(refused.body.error).toMatchObject({
      code: -32602,
      message: 'inputResponses.tone.action must be one of "accept", "decline", "cancel"',
      data: { errors: [expect.objectContaining({ path: '/inputResponses/tone/action' })] },
    });
    expect((await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result.status).toBe('input_required');
    // So is an answer that does not fill in the request's form.
    const unfit = await taskRpc(s, 'alice', 'tasks/update', {
      taskId,
      inputResponses: { tone: { action: 'accept', content: { tone: 'casual' } } },
    });
    expect(unfit.body.error).toMatchObject({
      code: -32602,
      message:
        'inputResponses.tone.content.tone is not a field of the form (it asks for answer); inputResponses.tone.content.answer is required',
      data: { errors: [expect.objectContaining({ path: '/inputResponses/tone/content/tone' }), expect.anything()] },
    });
    // A key no request could have is named, with why.
    const badKey = await taskRpc(s, 'alice', 'tasks/update', {
      taskId,
      inputResponses: { 'a b': { action: 'decline' } },
    });
    expect(badKey.body.error).toMatchObject({
      code: -32602,
      message: `inputResponses has the key "a b", which must be a key of letters, digits, '.', '_', ':' or '-'`,
    });
    expect((await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result.status).toBe('input_required');

    const answered = await taskRpc(s, 'alice', 'tasks/update', {
      taskId,
      inputResponses: { tone: { action: 'accept', content: { answer: 'casual' } } },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.result.resultType).toBe('complete');
    const working = await taskRpc(s, 'alice', 'tasks/get', { taskId });
    expect(working.body.result.status).toBe('working');
    expect(working.body.result).not.toHaveProperty('inputRequests');

    const seen = await toolOk(s, 'bob', 'handoff_get', { handoff_id: handoffId });
    expect(seen.handoff.inputs).toContainEqual(
      expect.objectContaining({
        key: 'tone',
        response: { action: 'accept', content: { answer: 'casual' } },
        answered_by: 'alice',
      }),
    );

    const done = await toolOk(s, 'bob', 'handoff_complete', {
      handoff_id: handoffId,
      result: textResult('A casual title'),
    });
    expect(done.handoff.status).toBe('result_ready');

    const completed = await taskRpc(s, 'alice', 'tasks/get', { taskId });
    expect(completed.body.result).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      result: { resultType: 'complete', content: [{ type: 'text', text: 'A casual title' }] },
    });

    const approved = await toolOk(s, 'dave', 'handoff_approve', { handoff_id: handoffId, note: 'Good' });
    expect(approved.handoff.status).toBe('approved');
    expect(approved.handoff.decision).toMatchObject({ by: 'dave' });
    // Approval never touches the task.
    expect((await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result.status).toBe('completed');
  });

  it('tasks/cancel is acknowledged with an empty result, and a terminal task stays as it was', async () => {
    const { handoffId, taskId } = await createHandoff(s);
    const cancel = await taskRpc(s, 'alice', 'tasks/cancel', { taskId });
    expect(cancel.status).toBe(200);
    expect(cancel.body.result.resultType).toBe('complete');
    expect(Object.keys(cancel.body.result).filter((key) => key !== '_meta')).toEqual(['resultType']);
    expect((await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result.status).toBe('cancelled');
    expect((await toolOk(s, 'alice', 'handoff_get', { handoff_id: handoffId })).handoff.status).toBe('cancelled');

    const second = await createHandoff(s);
    await toolOk(s, 'bob', 'handoff_accept', { handoff_id: second.handoffId });
    await toolOk(s, 'bob', 'handoff_complete', { handoff_id: second.handoffId, result: textResult('done') });
    const before = (await taskRpc(s, 'alice', 'tasks/get', { taskId: second.taskId })).body.result;
    const again = await taskRpc(s, 'alice', 'tasks/cancel', { taskId: second.taskId });
    expect(again.status).toBe(200);
    expect(Object.keys(again.body.result).filter((key) => key !== '_meta')).toEqual(['resultType']);
    expect(again.body.result.resultType).toBe('complete');
    const after = (await taskRpc(s, 'alice', 'tasks/get', { taskId: second.taskId })).body.result;
    expect(after).toEqual(before);
    expect(after.status).toBe('completed');
  });
});

describe('subscriptions/listen', () => {
  it('acknowledges only what it will send, then streams the full task on a status change', async () => {
    const own = await createHandoff(s, 'alice', { summary: 'Own work', assignee: 'bob' });
    const others = await createHandoff(s, 'bob', { summary: "Bob's own work" });
    await toolOk(s, 'bob', 'handoff_accept', { handoff_id: own.handoffId });

    const stream = await listen(
      s,
      'alice',
      { taskIds: [own.taskId, 'tk_made_up', others.taskId, own.taskId] },
      { tasks: true, id: 'listen-1' },
    );
    try {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.response.headers.get('x-accel-buffering')).toBe('no');
      expect(stream.response.headers.get('mcp-session-id')).toBeNull();

      await nextFrame(stream, () => true, 'the first frame');
      const ack = stream.frames[0];
      expect(ack).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: [own.taskId] }, _meta: { [META_SUBSCRIPTION]: 'listen-1' } },
      });

      // Bob changes his own task first, then completes alice's: only alice's reaches her.
      await taskRpc(s, 'bob', 'tasks/cancel', { taskId: others.taskId });
      await toolOk(s, 'bob', 'handoff_complete', { handoff_id: own.handoffId, result: textResult('Finished') });

      const notification = await nextFrame(
        stream,
        (f) => f.method === 'notifications/tasks' && f.params.status === 'completed',
        'notifications/tasks (completed)',
      );
      const { _meta, ...task } = notification.params;
      expect(_meta).toEqual({ [META_SUBSCRIPTION]: 'listen-1' });
      const polled = (await taskRpc(s, 'alice', 'tasks/get', { taskId: own.taskId })).body.result;
      const { resultType: _rt, _meta: _m, ...detailed } = polled;
      expect(task).toEqual(detailed);
      expect(task).toMatchObject({ taskId: own.taskId, status: 'completed', result: { resultType: 'complete' } });
      for (const frame of stream.frames) {
        expect(frame.params._meta, JSON.stringify(frame)).toEqual({ [META_SUBSCRIPTION]: 'listen-1' });
        if (frame.method === 'notifications/tasks') expect(frame.params.taskId).toBe(own.taskId);
      }
    } finally {
      stream.abort();
    }
  });

  it('sends notifications/resources/updated for a subscribed URI on a handoff change', async () => {
    const stream = await listen(
      s,
      'carol',
      { resourceSubscriptions: [HANDOFFS_URI, 'workspace:///no-such-thing', HANDOFFS_URI], toolsListChanged: true },
      { id: 7 },
    );
    try {
      const ack = await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
      expect(stream.frames[0]).toBe(ack);
      expect(ack.params).toEqual({
        notifications: { resourceSubscriptions: [HANDOFFS_URI] },
        _meta: { [META_SUBSCRIPTION]: 7 },
      });

      await createHandoff(s, 'alice', { summary: 'Something changed' });
      const updated = await nextFrame(stream, isMethod('notifications/resources/updated'), 'resources/updated');
      expect(updated).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: HANDOFFS_URI, _meta: { [META_SUBSCRIPTION]: 7 } },
      });
    } finally {
      stream.abort();
    }
  });

  it('holds no resource subscription for a session that cannot read', async () => {
    const { token } = createSession(s.room, LOCAL_OPERATOR, { participant: 'dave', capabilities: ['approve'] });
    const { url: listenUrl, init } = rpcRequest(
      url,
      'subscriptions/listen',
      { notifications: { resourceSubscriptions: [HANDOFFS_URI] } },
      { token, id: 3 },
    );
    const stream = await openSse(listenUrl, init);
    try {
      const ack = await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
      expect(ack.params.notifications).toEqual({});
      await createHandoff(s);
      // A later frame on another stream shows the change was published; this one stays silent.
      const probe = await listen(s, 'alice', { resourceSubscriptions: [HANDOFFS_URI] }, { id: 'probe' });
      try {
        await nextFrame(probe, isMethod('notifications/subscriptions/acknowledged'), 'the probe acknowledgement');
        await createHandoff(s);
        await nextFrame(probe, isMethod('notifications/resources/updated'), 'the probe update');
      } finally {
        probe.abort();
      }
      expect(stream.frames).toHaveLength(1);
    } finally {
      stream.abort();
    }
  });

  it('ends the subscription on notifications/cancelled for the listen request', async () => {
    const before = s.room.bus.size;
    const stream = await listen(s, 'alice', { resourceSubscriptions: [HANDOFFS_URI] }, { id: 'cancel-me' });
    await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
    expect(s.room.bus.size).toBe(before + 1);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'cancel-me' } };
    // An Mcp-Method that names another method is refused, and the stream goes on.
    const misrouted = await post(url, cancel, mcpHeaders('tools/list', s.tokens.alice));
    expect(misrouted.status).toBe(400);
    expect(misrouted.body.error).toMatchObject({
      code: -32020,
      message: "the Mcp-Method header (tools/list) does not match the body's method (notifications/cancelled)",
    });
    expect(s.room.bus.size).toBe(before + 1);
    expect(stream.done).toBe(false);
    // Without Mcp-Method, as the official client sends it, the listen ends.
    const cancelled = await post(
      url,
      cancel,
      mcpHeaders('notifications/cancelled', s.tokens.alice, { 'mcp-method': null }),
    );
    expect(cancelled.status).toBe(202);
    await expect.poll(() => s.room.bus.size, { timeout: 15_000 }).toBe(before);
    await expect.poll(() => stream.done, { timeout: 15_000, message: 'the stream should end' }).toBe(true);
  });

  it('ends the subscription when the client aborts the request', async () => {
    const before = s.room.bus.size;
    const stream = await listen(s, 'alice', { resourceSubscriptions: [HANDOFFS_URI] });
    await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
    expect(s.room.bus.size).toBe(before + 1);
    stream.abort();
    await expect.poll(() => s.room.bus.size, { timeout: 15_000 }).toBe(before);
  });

  it('on shutdown sends the final response to the listen request, then closes the stream', async () => {
    const stream = await listen(s, 'alice', { resourceSubscriptions: [HANDOFFS_URI] }, { id: 'shutdown-1' });
    await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
    const closing = s.http.close();
    await expect.poll(() => stream.done, { timeout: 15_000, message: 'the stream should end' }).toBe(true);
    await closing;
    const last = stream.frames.at(-1);
    expect(last).toMatchObject({
      jsonrpc: '2.0',
      id: 'shutdown-1',
      result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION]: 'shutdown-1' } },
    });
    expect(last).not.toHaveProperty('method');
    expect(stream.frames).toHaveLength(2);
  });
});

describe('legacy resources/subscribe and GET /mcp', () => {
  it('streams resources/updated for a subscribed URI and never a task notification', async () => {
    const subscribed = await rpc(url, 'resources/subscribe', { uri: HANDOFFS_URI }, { token: s.tokens.alice });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(200);
    expect(subscribed.body.result.resultType).toBe('complete');

    const legacy = await openSse(url, {
      method: 'GET',
      headers: { authorization: `Bearer ${s.tokens.alice}`, accept: 'text/event-stream' },
    });
    try {
      expect(legacy.response.status).toBe(200);
      expect(legacy.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const before = s.room.bus.size;
      expect(before).toBeGreaterThan(0);

      // Alice's own task changes three times; the legacy stream may only say the handoffs changed.
      const { handoffId, taskId } = await createHandoff(s, 'alice', { summary: 'Watched', assignee: 'bob' });
      await toolOk(s, 'bob', 'handoff_accept', { handoff_id: handoffId });
      await toolOk(s, 'bob', 'handoff_complete', { handoff_id: handoffId, result: textResult('ok') });
      const events = (await toolOk(s, 'alice', 'handoff_events', { handoff_id: handoffId })).events;
      expect(events).toHaveLength(3);

      await expect
        .poll(() => legacy.frames.filter(isMethod('notifications/resources/updated')).length, { timeout: 15_000 })
        .toBe(events.length);
      expect(legacy.frames.every(isMethod('notifications/resources/updated'))).toBe(true);
      expect(legacy.frames.some(isMethod('notifications/tasks'))).toBe(false);
      for (const frame of legacy.frames) expect(frame.params.uri).toBe(HANDOFFS_URI);
      expect(JSON.stringify(legacy.frames)).not.toContain(taskId);
    } finally {
      legacy.abort();
    }
  });
});

describe('resources/list and resources/read', () => {
  it('lists and reads the artifact as text/markdown and the JSON views', async () => {
    await createHandoff(s, 'alice', { summary: 'Visible in the view' });
    const list = await rpc(url, 'resources/list', {}, { token: s.tokens.carol });
    expect(list.status).toBe(200);
    const resources: Wire[] = list.body.result.resources;
    expect(resources).toContainEqual(expect.objectContaining({ uri: ARTIFACT_URI, mimeType: 'text/markdown' }));
    for (const view of ['handoffs', 'proposals', 'history']) {
      expect(resources).toContainEqual(
        expect.objectContaining({ uri: `workspace:///.room/${view}`, mimeType: 'application/json' }),
      );
    }

    const artifact = await rpc(url, 'resources/read', { uri: ARTIFACT_URI }, { token: s.tokens.carol });
    expect(artifact.status, JSON.stringify(artifact.body)).toBe(200);
    expect(artifact.body.result.contents).toEqual([
      { uri: ARTIFACT_URI, mimeType: 'text/markdown', text: '# Test room\n' },
    ]);

    for (const view of ['handoffs', 'proposals', 'history']) {
      const uri = `workspace:///.room/${view}`;
      const r = await rpc(url, 'resources/read', { uri }, { token: s.tokens.carol });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const [contents] = r.body.result.contents;
      expect(contents).toMatchObject({ uri, mimeType: 'application/json' });
      expect(() => JSON.parse(contents.text)).not.toThrow();
    }
    const handoffs = JSON.parse(
      (await rpc(url, 'resources/read', { uri: HANDOFFS_URI }, { token: s.tokens.carol })).body.result.contents[0].text,
    );
    expect(JSON.stringify(handoffs)).toContain('Visible in the view');
  });

  it('the history view is the latest, newest first, as its title says, however long the room has lived', async () => {
    // Past a page of 500: the first revision, 500 decisions, and the last one the view must show first.
    const alice = { participant: 'alice', capabilities: ['read', 'write'] as Capability[] };
    for (let i = 0; i < 501; i++) {
      const { proposal } = proposeChange(s.room, alice, {
        base_revision: 1,
        content: `# Draft ${i}\n`,
        summary: 'A change',
      });
      withdrawProposal(s.room, alice, { proposal_id: proposal.proposal_id });
    }
    const list = await rpc(url, 'resources/list', {}, { token: s.tokens.carol });
    expect(list.body.result.resources).toContainEqual(
      expect.objectContaining({ uri: 'workspace:///.room/history', title: 'Recent history' }),
    );
    const read = await rpc(url, 'resources/read', { uri: 'workspace:///.room/history' }, { token: s.tokens.carol });
    const view = JSON.parse(read.body.result.contents[0].text);
    const ids = view.entries.map((entry: { id: number }) => entry.id);
    expect(ids).toHaveLength(500);
    expect(ids[0]).toBe(Math.max(...ids));
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    expect(view.has_more).toBe(true);
    expect(
      view.entries.some((entry: { kind: string; revision: { number: number } | null }) => entry.revision?.number === 1),
    ).toBe(false);
  });

  it('answers an unknown URI and a session without read alike: -32602', async () => {
    const { token: noRead } = createSession(s.room, LOCAL_OPERATOR, { participant: 'dave', capabilities: ['approve'] });
    const unknown = await rpc(url, 'resources/read', { uri: 'workspace:///secret.md' }, { token: s.tokens.alice });
    const unreadable = await rpc(url, 'resources/read', { uri: ARTIFACT_URI }, { token: noRead });
    // Each names the URI it could not find in data.uri (server/resources.mdx).
    expect(unknown.body.error).toMatchObject({ code: -32602, data: { uri: 'workspace:///secret.md' } });
    expect(unreadable.body.error).toMatchObject({ code: -32602, data: { uri: ARTIFACT_URI } });
    expect(unreadable.status).toBe(unknown.status);
    expect(unreadable.body.error.message.replace(ARTIFACT_URI, '<uri>')).toBe(
      unknown.body.error.message.replace('workspace:///secret.md', '<uri>'),
    );
    expect({ ...unreadable.body.error.data, uri: '<uri>' }).toEqual({ ...unknown.body.error.data, uri: '<uri>' });
  });
});
