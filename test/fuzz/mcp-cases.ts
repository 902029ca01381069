// Fuzz cases for POST /mcp (and the other methods on /mcp): a well-formed
// request of every method and tool, then one thing broken in its headers,
// its JSON text, its envelope, its params or its tool arguments, each with
// the answer the reference's table gives for it.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { mcpMethods, toolCatalog, toolOperations, type McpMethod } from '../../generated/mcp.js';
import { operations } from '../../generated/operations.js';
import type { Capability } from '../../generated/types.js';
import type { Expectation } from './answer-rules.js';
import type { WireRequest } from './wire.js';
import {
  anyJson,
  badBase64,
  base64Wrap,
  codePoints,
  Deep,
  deepValue,
  escapePrototypeKeys,
  getAt,
  headerText,
  hostileString,
  isJson,
  notAnObject,
  oddString,
  pathsOf,
  serialize,
  setAt,
  holdsLoneSurrogate,
  oddWellFormedString,
  truncated,
  withJunk,
  withKeyAt,
  withPrototypeKey,
  wrongTypeFor,
  type JsonPath,
} from './arbitraries.js';
import {
  foreignOrigins,
  JSON_MEDIA_TYPES,
  MIB,
  overLimit,
  NOT_JSON_MEDIA_TYPES,
  withHeader,
  type FuzzCase,
  type FuzzWorld,
  type Headers,
} from './cases.js';
import { SESSION_CAPABILITIES } from './fuzz-room.js';

export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

export interface McpCall {
  method: string;
  params: Record<string, unknown>;
  token: string;
  id: string | number;
  /** The Tasks extension declared in _meta. */
  tasks: boolean;
  /** The capabilities of the token's session. */
  may?: readonly Capability[];
}

/** A tool's refusal of a session without the capability it needs, which comes before its arguments are checked. */
function refusalOfWho(call: McpCall): Expectation | null {
  if (call.method !== 'tools/call' || call.may === undefined) return null;
  const operation = operations[toolOperations[call.params.name as keyof typeof toolOperations]];
  return operation.capability !== null && !call.may.includes(operation.capability)
    ? { is: 'tool-error', code: 'forbidden' }
    : null;
}

const meta = (tasks: boolean) => ({
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1.0.0' },
});

/** The JSON-RPC request of a call; members the call puts in _meta join the standard ones. */
export const messageOf = (call: McpCall) => ({
  jsonrpc: '2.0',
  id: call.id,
  method: call.method,
  params: { ...call.params, _meta: { ...meta(call.tasks), ...(call.params._meta as object | undefined) } },
});

const nameParamOf = (method: string): string | null =>
  Object.hasOwn(mcpMethods, method) ? mcpMethods[method as McpMethod].nameParam : null;

/** A header value as sent: wrapped in Base64 when it is not plain visible ASCII. */
export const headerValue = (value: string): string =>
  /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) ? value : base64Wrap(value);

export function mcpHeaders(call: McpCall): Headers {
  const headers: Headers = [
    ['content-type', 'application/json'],
    ['accept', 'application/json, text/event-stream'],
    ['mcp-protocol-version', PROTOCOL_VERSION],
    ['mcp-method', call.method],
    ['authorization', `Bearer ${call.token}`],
  ];
  const nameParam = nameParamOf(call.method);
  const name = nameParam === null ? undefined : call.params[nameParam];
  if (typeof name === 'string') headers.push(['mcp-name', headerValue(name)]);
  return headers;
}

export function mcpRequest(
  call: McpCall,
  headers = mcpHeaders(call),
  body: string = serialize(messageOf(call)),
): WireRequest {
  return { method: 'POST', path: '/mcp', headers, body: Buffer.from(body, 'utf8') };
}

/** What a well-formed call gets: a stream for listen, else 200 with a result or a refusal by the room. */
export const wellFormed = (call: McpCall): Expectation =>
  call.method === 'subscriptions/listen' ? { is: 'stream' } : { is: 'answered' };

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype'];

const rpc = (status: number, ...codes: number[]): Expectation => ({ is: 'rpc', status, codes });

// ---------------------------------------------------------------------------
// Well-formed calls

/** Tool arguments that match each tool's input schema, on the room's real records. */
function toolArguments(world: FuzzWorld): fc.Arbitrary<{ name: string; args: Record<string, unknown> }> {
  const { ids } = world;
  const handoff = fc.constantFrom(ids.openHandoff, ids.acceptedHandoff, ids.unassignedHandoff);
  const task = fc.constantFrom(ids.openTask, ids.acceptedTask, ids.unassignedTask);
  const note = fc.option(fc.constantFrom('Looks right', 'Needs work'), { nil: undefined });
  const tool = (name: string, args: fc.Arbitrary<Record<string, unknown>>) => args.map((a) => ({ name, args: a }));
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const defined = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, unknown>;
  return fc.oneof(
    tool(
      'handoff_create',
      fc
        .record({
          summary: fc.constantFrom('Check the numbers', 'Translate the intro'),
          constraints: optional(fc.constant('By noon')),
          assignee: optional(fc.constantFrom('bob', 'alice')),
          artifacts: optional(fc.constant([{ uri: 'workspace:///room.md', title: 'The room', revision: 1 }])),
          idempotency_key: optional(fc.constantFrom('fuzz-1', 'fuzz-2')),
        })
        .map(defined),
    ),
    tool(
      'handoff_accept',
      handoff.map((handoff_id) => ({ handoff_id })),
    ),
    tool(
      'handoff_request_input',
      fc
        .record({
          handoff_id: handoff,
          message: fc.constant('Which tone?'),
          key: optional(fc.constantFrom('tone', 'length')),
          requested_schema: optional(fc.constant({ type: 'object', properties: { answer: { type: 'string' } } })),
        })
        .map(defined),
    ),
    tool(
      'handoff_complete',
      fc.oneof(
        fc.record({
          handoff_id: handoff,
          result: fc.constant({ content: [{ type: 'text', text: 'Done' }], structuredContent: { ok: true } }),
        }),
        fc.record({
          handoff_id: handoff,
          error: fc.constant({ code: -32000, message: 'Could not', data: { why: 'x' } }),
        }),
      ),
    ),
    tool(
      'handoff_get',
      fc.oneof(
        handoff.map((handoff_id) => ({ handoff_id })),
        task.map((task_id) => ({ task_id })),
      ),
    ),
    tool(
      'handoff_events',
      fc
        .record({ handoff_id: handoff, after: optional(fc.nat(5)), limit: optional(fc.integer({ min: 1, max: 500 })) })
        .map(defined),
    ),
    tool('handoff_approve', fc.record({ handoff_id: handoff, note }).map(defined)),
    tool('handoff_reject', fc.record({ handoff_id: handoff, note }).map(defined)),
    tool(
      'workspace_propose',
      fc.oneof(
        fc
          .record({
            base_revision: fc.constant(1),
            content: fc.constant('# Fuzz room\n\nAnother line.\n'),
            summary: optional(fc.constant('Tone')),
          })
          .map(defined),
        fc.record({
          base_revision: fc.constant(1),
          diff: fc.constant('--- a\n+++ b\n@@ -1,3 +1,3 @@\n # Fuzz room\n \n-A line to change.\n+A line changed.\n'),
          summary: fc.constant('A change'),
        }),
      ),
    ),
    tool('proposal_get', fc.constant({ proposal_id: ids.proposal })),
    tool('proposal_approve', fc.record({ proposal_id: fc.constant(ids.proposal), note }).map(defined)),
    tool('proposal_reject', fc.record({ proposal_id: fc.constant(ids.proposal), note }).map(defined)),
    tool('proposal_withdraw', fc.record({ proposal_id: fc.constant(ids.proposal), note }).map(defined)),
    tool(
      'workspace_history',
      fc.record({ after: optional(fc.nat(3)), limit: optional(fc.integer({ min: 1, max: 500 })) }).map(defined),
    ),
  );
}

/** A request of every MCP method, well-formed, by any valid session. */
export function mcpCalls(world: FuzzWorld): fc.Arbitrary<McpCall> {
  const { ids, tokens } = world;
  const uris = [
    ids.artifactUri,
    'workspace:///.room/handoffs',
    'workspace:///.room/proposals',
    'workspace:///.room/history',
  ];
  const taskIds = [ids.openTask, ids.acceptedTask, ids.unassignedTask];
  const uri = fc.constantFrom(...uris);
  const task = fc.constantFrom(...taskIds);
  const shape = fc.oneof(
    fc
      .constantFrom('server/discover', 'tools/list', 'resources/list')
      .map((method) => ({ method, params: {}, tasks: false })),
    fc
      .constantFrom('resources/read', 'resources/subscribe', 'resources/unsubscribe')
      .chain((method) => uri.map((u) => ({ method, params: { uri: u }, tasks: false }))),
    fc
      .record({ resourceSubscriptions: fc.subarray(uris), taskIds: fc.subarray(taskIds) })
      .map((notifications) => ({ method: 'subscriptions/listen', params: { notifications }, tasks: true })),
    task.map((taskId) => ({ method: 'tasks/get', params: { taskId }, tasks: true })),
    task.map((taskId) => ({
      method: 'tasks/update',
      params: { taskId, inputResponses: { tone: { action: 'accept', content: { answer: 'Warm' } } } },
      tasks: true,
    })),
    task.map((taskId) => ({ method: 'tasks/cancel', params: { taskId }, tasks: true })),
    {
      arbitrary: toolArguments(world).map(({ name, args }) => ({
        method: 'tools/call',
        params: { name, arguments: args },
        tasks: false,
      })),
      weight: 6,
    },
  );
  return fc
    .record({
      shape,
      who: fc
        .constantFrom<keyof typeof tokens>('alice', 'alice', 'bob', 'carol', 'dave', 'admin', 'approveOnly')
        .map((who) => ({ token: tokens[who], may: SESSION_CAPABILITIES[who] })),
      id: fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.string({ minLength: 1, maxLength: 12 })),
      tasks: fc.boolean(),
    })
    .map(({ shape, who, id, tasks }) => ({ ...shape, ...who, id, tasks: shape.tasks || tasks }));
}

// ---------------------------------------------------------------------------
// What a changed value in params or in a tool's arguments must get

const toolValidators = new Map<string, ValidateFunction>();
{
  // The tool's advertised input schema (tools/list), checked as a client would.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  for (const tool of toolCatalog)
    toolValidators.set(tool.name, ajv.compile(structuredClone(tool.inputSchema) as object));
}

/** The answer to a call of `method` whose params, as sent, were changed at `path`. */
export function expectForParams(
  method: string,
  params: Record<string, unknown>,
  path: JsonPath,
  deep: boolean,
  /** The tool's refusal of who calls (refusalOfWho), which comes before its arguments are checked. */
  whoRefused: Expectation | null = null,
): Expectation {
  const entry = mcpMethods[method as McpMethod];
  // The body is judged before its headers: nested past 64 levels, or a string that is not Unicode.
  if (deep) return rpc(400, -32600);
  if (holdsLoneSurrogate(params)) return rpc(400, -32602);
  // The params are judged before Mcp-Name, which still names the original value.
  if (!entry.validateParams(params)) return rpc(400, -32602);
  if (path.length === 1 && path[0] === entry.nameParam) return rpc(400, -32020);
  if (method === 'tools/call' && path[0] === 'arguments' && path.length > 1) {
    const validate = toolValidators.get(params.name as string)!;
    if (validate(params.arguments)) return { is: 'answered' };
    return whoRefused ?? { is: 'tool-error', code: 'invalid_input' };
  }
  return path[0] === '_meta' || method === 'subscriptions/listen' ? { is: 'any' } : { is: 'answered' };
}

// ---------------------------------------------------------------------------
// One thing broken

type Build = (call: McpCall, world: FuzzWorld) => fc.Arbitrary<FuzzCase>;

const base = (call: McpCall, kind: string, expect: Expectation, request = mcpRequest(call)): FuzzCase => ({
  kind,
  request,
  expect,
  firstEvent: call.method === 'subscriptions/listen',
});

/** The call unchanged: it gets past the transport. */
const unchanged: Build = (call) => fc.constant(base(call, 'mcp well-formed', wellFormed(call)));

/** One header missing, duplicated, Base64-wrapped (validly or not), mismatched, or of another kind. */
const tamperedHeader: Build = (call, world) => {
  const headers = mcpHeaders(call);
  const nameParam = nameParamOf(call.method);
  const ok = wellFormed(call);
  const edits: fc.Arbitrary<[string, Headers, Expectation]>[] = [
    fc.constant(['no MCP-Protocol-Version', withHeader(headers, 'mcp-protocol-version'), rpc(400, -32020)]),
    fc
      .oneof(
        fc.constantFrom('2025-11-25', '2025-06-18', '2026-07-29', '2026-7-28', 'latest', '2026-07-28, 2026-07-28', ''),
        headerText,
      )
      .filter((v) => v !== PROTOCOL_VERSION)
      .map((v) => [
        'another MCP-Protocol-Version',
        withHeader(headers, 'mcp-protocol-version', v),
        rpc(400, -32020, -32022),
      ]),
    fc.constant([
      'MCP-Protocol-Version twice',
      withHeader(headers, 'mcp-protocol-version', PROTOCOL_VERSION, PROTOCOL_VERSION),
      rpc(400, -32020, -32022),
    ]),
    fc.constant([
      'MCP-Protocol-Version in Base64',
      withHeader(headers, 'mcp-protocol-version', base64Wrap(PROTOCOL_VERSION)),
      ok,
    ]),
    badBase64.map((v) => [
      'MCP-Protocol-Version in broken Base64',
      withHeader(headers, 'mcp-protocol-version', v),
      rpc(400, -32020),
    ]),
    fc.constant(['no Mcp-Method', withHeader(headers, 'mcp-method'), rpc(400, -32020)]),
    fc
      .oneof(
        fc.constantFrom('tools/list', 'tools/call', 'server/discover', call.method.toUpperCase(), `${call.method} `),
        headerText,
      )
      .filter((v) => v.trim() !== call.method)
      .map((v) => ['another Mcp-Method', withHeader(headers, 'mcp-method', v), rpc(400, -32020)]),
    fc.constant(['Mcp-Method twice', withHeader(headers, 'mcp-method', call.method, call.method), rpc(400, -32020)]),
    fc.constant(['Mcp-Method in Base64', withHeader(headers, 'mcp-method', base64Wrap(call.method)), ok]),
    badBase64.map((v) => ['Mcp-Method in broken Base64', withHeader(headers, 'mcp-method', v), rpc(400, -32020)]),
    fc.constant(['no Authorization', withHeader(headers, 'authorization'), rpc(401, -32600)]),
    fc
      .constantFrom(
        world.refused.revoked,
        world.refused.expired,
        world.refused.removed,
        world.refused.unknown,
        world.operatorToken,
      )
      .map((t) => [
        'a token that opens no session',
        withHeader(headers, 'authorization', `Bearer ${t}`),
        rpc(401, -32600),
      ]),
    fc
      .constantFrom(
        `Basic ${Buffer.from(`alice:${call.token}`).toString('base64')}`,
        base64Wrap(`Bearer ${call.token}`),
        'Bearer',
        `Bearer ${call.token} extra`,
        `Token ${call.token}`,
        call.token,
      )
      .map((v) => ['Authorization of another form', withHeader(headers, 'authorization', v), rpc(401, -32600)]),
    fc
      .constantFrom('alice', 'carol', 'nobody', 'erin', 'ALICE', base64Wrap('alice'), 'alice, bob')
      .map((who) => [
        'the operator token acting as someone',
        [...withHeader(headers, 'authorization', `Bearer ${world.operatorToken}`), ['commonroom-participant', who]],
        { is: 'any' },
      ]),
    fc.constant([
      'Authorization twice',
      withHeader(headers, 'authorization', `Bearer ${call.token}`, 'Bearer x'),
      { is: 'any' },
    ]),
    fc.constant(['no Content-Type', withHeader(headers, 'content-type'), rpc(415, -32600)]),
    fc
      .constantFrom(...NOT_JSON_MEDIA_TYPES)
      .map((v) => ['a Content-Type that is not JSON', withHeader(headers, 'content-type', v), rpc(415, -32600)]),
    fc
      .constantFrom(...JSON_MEDIA_TYPES)
      .map((v) => ['a JSON Content-Type', withHeader(headers, 'content-type', v), ok]),
    fc
      .constantFrom(...foreignOrigins(world))
      .map((v) => ['a foreign Origin', withHeader(headers, 'origin', v), rpc(403, -32600)]),
    fc.constant(["the room's own Origin", withHeader(headers, 'origin', world.ownOrigin), ok]),
    fc
      .constantFrom(world.ownOrigin, 'http://evil.example')
      .map((v) => ['Origin twice', withHeader(headers, 'origin', world.ownOrigin, v), { is: 'any' }]),
    fc
      .constantFrom('application/json', 'text/plain')
      .map((v) => ['Content-Type twice', withHeader(headers, 'content-type', 'application/json', v), { is: 'any' }]),
    fc
      .constantFrom('text/html', '*/*', 'application/json', 'text/event-stream')
      .map((v) => ['another Accept', withHeader(headers, 'accept', v), { is: 'any' }]),
    headerText.map((v) => ['an Mcp-Session-Id', [...headers, ['mcp-session-id', v]], ok]),
  ];
  if (nameParam !== null) {
    const name = call.params[nameParam] as string;
    edits.push(
      fc.constant(['no Mcp-Name', withHeader(headers, 'mcp-name'), rpc(400, -32020)]),
      fc
        .oneof(headerText, fc.constant(name.toUpperCase()), fc.constant(`${name}x`))
        .filter((v) => v !== name)
        .map((v) => ['another Mcp-Name', withHeader(headers, 'mcp-name', v), rpc(400, -32020)]),
      fc.constant(['Mcp-Name in Base64', withHeader(headers, 'mcp-name', base64Wrap(name)), ok]),
      badBase64.map((v) => ['Mcp-Name in broken Base64', withHeader(headers, 'mcp-name', v), rpc(400, -32020)]),
      fc.constant(['Mcp-Name twice', withHeader(headers, 'mcp-name', name, name), rpc(400, -32020)]),
    );
  } else {
    edits.push(headerText.map((v) => ['an Mcp-Name the method does not use', [...headers, ['mcp-name', v]], ok]));
  }
  return fc
    .oneof(...edits)
    .map(([what, edited, expect]) => base(call, `mcp header: ${what}`, expect, mcpRequest(call, edited)));
};

/** The JSON text broken: cut short, junk in it, not one object, or a prototype key. */
const brokenText: Build = (call) => {
  const text = serialize(messageOf(call));
  return fc.oneof(
    truncated(text).map((t) =>
      base(call, 'mcp body: truncated JSON', rpc(400, -32700), mcpRequest(call, undefined, t)),
    ),
    withJunk(text).map((t) =>
      base(
        call,
        'mcp body: junk in the JSON',
        isJson(t) ? { is: 'any' } : rpc(400, -32700),
        mcpRequest(call, undefined, t),
      ),
    ),
    notAnObject(messageOf(call)).map((t) =>
      base(call, 'mcp body: not one JSON object', rpc(400, -32600), mcpRequest(call, undefined, t)),
    ),
    withPrototypeKey(messageOf(call)).map(({ value, escaped }) =>
      base(call, `mcp body: a prototype key${escaped ? ' (escaped)' : ''}`, rpc(400, -32700), {
        ...mcpRequest(call, undefined, escaped ? escapePrototypeKeys(serialize(value)) : serialize(value)),
      }),
    ),
  );
};

/** The JSON-RPC envelope wrong: jsonrpc, id, method or params of the wrong type, or missing; no id at all. */
const brokenEnvelope: Build = (call) => {
  const message = messageOf(call) as Record<string, unknown>;
  const sent = (value: unknown) => mcpRequest(call, undefined, serialize(value));
  const without = (key: string) => Object.fromEntries(Object.entries(message).filter(([k]) => k !== key));
  return fc.oneof(
    fc
      .oneof(fc.constantFrom('1.0', '2', '2.0 ', 2, 2.0, null, true), wrongTypeFor('2.0'))
      .map((v) => base(call, 'mcp envelope: jsonrpc', rpc(400, -32600), sent({ ...message, jsonrpc: v }))),
    fc.constant(base(call, 'mcp envelope: no jsonrpc', rpc(400, -32600), sent(without('jsonrpc')))),
    wrongTypeFor('method').map((v) =>
      base(call, 'mcp envelope: method not a string', rpc(400, -32600), sent({ ...message, method: v })),
    ),
    fc.constant(base(call, 'mcp envelope: no method', rpc(400, -32600), sent(without('method')))),
    fc
      .oneof(
        fc.constantFrom(1.5, -0.5, true, null, {}, [], [1]),
        wrongTypeFor(1).filter((v) => typeof v !== 'string'),
      )
      .map((v) => base(call, 'mcp envelope: id of the wrong type', rpc(400, -32600), sent({ ...message, id: v }))),
    wrongTypeFor({}).map((v) =>
      base(call, 'mcp envelope: params not an object', rpc(400, -32600), sent({ ...message, params: v })),
    ),
    // A request method sent without an id is refused, not dropped as a notification unanswered.
    fc.constant(base(call, 'mcp envelope: a request without an id', rpc(400, -32600), sent(without('id')))),
    fc
      .tuple(
        fc
          .string({ maxLength: 6 })
          .filter((k) => !['jsonrpc', 'id', 'method', 'params', ...PROTOTYPE_NAMES].includes(k)),
        anyJson,
      )
      .map(([key, value]) =>
        base(call, 'mcp envelope: an extra member', { is: 'any' }, sent({ ...message, [key]: value })),
      ),
  );
};

/** A method name the room does not have, prototype names included; initialize too, sent with the 2026-07-28 headers. */
const unknownMethod: Build = (call) =>
  fc
    .oneof(
      fc.constantFrom(
        'initialize',
        'toString',
        'constructor',
        '__proto__',
        'hasOwnProperty',
        'tools/List',
        'tools/call/',
        'ping',
        'resources/templates/list',
        'prompts/list',
      ),
      fc.string({ minLength: 1, maxLength: 20 }),
    )
    .filter((m) => !Object.hasOwn(mcpMethods, m))
    .map((method) => {
      const renamed = { ...call, method };
      const headers = withHeader(mcpHeaders(call), 'mcp-method', headerValue(method));
      return base(renamed, 'mcp: unknown method', rpc(404, -32601), mcpRequest(renamed, headers));
    });

/** One value in params (tool arguments included) replaced: wrong type, odd Unicode, over a limit, deeply nested. */
const changedParam: Build = (call) => {
  const params = messageOf(call).params;
  return fc
    .constantFrom(...pathsOf(params))
    .chain((path) => {
      const original = getAt(params, path);
      return fc
        .oneof(
          { weight: 5, arbitrary: wrongTypeFor(original).map((value) => ({ value, deep: false })) },
          {
            weight: typeof original === 'string' ? 3 : 0,
            arbitrary: hostileString.map((value) => ({ value, deep: false })),
          },
          { weight: 1, arbitrary: deepValue.map((value) => ({ value, deep: true })) },
        )
        .map(({ value, deep }) => ({ path, value, deep }));
    })
    .map(({ path, value, deep }) => {
      const changed = setAt(params, path, value);
      const where = path[0] === 'arguments' ? `tool ${String(call.params.name)} argument` : `${call.method} param`;
      // The headers are the original call's: a client that changed only the body.
      const body = serialize({ ...messageOf(call), params: changed });
      return base(
        call,
        `mcp ${where}: ${deep ? 'deeply nested' : 'changed'}`,
        expectForParams(call.method, changed, path, deep, refusalOfWho(call)),
        mcpRequest(call, mcpHeaders(call), body),
      );
    });
};

/** An argument the tool does not take: refused by its schema. */
const extraArgument: Build = (call) =>
  fc
    .tuple(
      fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !PROTOTYPE_NAMES.includes(k)),
      anyJson,
    )
    .map(([key, value]) => {
      const args = withKeyAt(call.params.arguments, [], key, value) as Record<string, unknown>;
      const sent = { ...call, params: { ...call.params, arguments: args } };
      const valid = toolValidators.get(call.params.name as string)!(args);
      return base(
        sent,
        'mcp tool argument: an extra one',
        valid ? { is: 'answered' } : (refusalOfWho(call) ?? { is: 'tool-error', code: 'invalid_input' }),
      );
    });

/** A body over 1 MiB, with or without Content-Length: 413 before parsing, and the connection still answers. */
const oversized: Build = (call) =>
  fc.tuple(overLimit, fc.boolean(), fc.boolean()).map(([over, chunked, json]) => {
    const text = serialize(messageOf(call));
    const filler = MIB + over - text.length;
    const body = json ? `${text.slice(0, -1)}${' '.repeat(filler)}}` : 'x'.repeat(MIB + over);
    return {
      ...base(call, `mcp body: over 1 MiB${chunked ? ', chunked' : ''}`, rpc(413, -32600), {
        ...mcpRequest(call, undefined, body),
        chunked,
      }),
      followUp: true,
    };
  });

/** Another HTTP method or path than POST /mcp. */
const otherMethodOrPath: Build = (call, world) => {
  const request = mcpRequest(call);
  return fc.oneof(
    fc
      .constantFrom('PUT', 'PATCH', 'DELETE', 'TRACE')
      .map((method) => base(call, `mcp: ${method} /mcp`, rpc(405, -32600, -32601), { ...request, method })),
    fc.constant({
      ...base(
        call,
        'mcp: GET /mcp (the legacy stream)',
        { is: 'stream' },
        { ...request, method: 'GET', body: undefined },
      ),
      firstEvent: false,
    }),
    fc.constant(
      base(call, 'mcp: GET /mcp without a session', rpc(401, -32600), { method: 'GET', path: '/mcp', headers: [] }),
    ),
    fc.constantFrom('HEAD', 'OPTIONS').map((method) => ({
      ...base(
        call,
        `mcp: ${method} /mcp`,
        { is: 'any' },
        { method, path: '/mcp', headers: withHeader(request.headers, 'authorization', `Bearer ${world.tokens.carol}`) },
      ),
      followUp: true,
    })),
    fc.constant(
      base(call, 'mcp: a query string on /mcp', wellFormed(call), { ...request, path: '/mcp?x=1&cursor=%00' }),
    ),
    fc
      .constantFrom('/mcp/', '/MCP', '/Mcp')
      .map((path) => base(call, `mcp: ${path}`, { is: 'any' }, { ...request, path })),
    fc
      .constantFrom('/mcp/x', '/mcp%2F', '/mcpx', '/mcp/..', '/mcp/%00', '/mcp/tools/call')
      .map((path) =>
        base(call, 'mcp: a path under /mcp', { is: 'problem', status: 404, code: 'not_found' }, { ...request, path }),
      ),
  );
};

/** The boundary of the summary limit in code points, and tool results around 256 KiB. */
export function limitCases(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  const create = (summary: string): McpCall => ({
    method: 'tools/call',
    params: { name: 'handoff_create', arguments: { summary } },
    token: world.tokens.alice,
    id: 1,
    tasks: false,
  });
  const complete = (text: string): McpCall => ({
    method: 'tools/call',
    params: {
      name: 'handoff_complete',
      arguments: { handoff_id: world.ids.acceptedHandoff, result: { content: [{ type: 'text', text }] } },
    },
    token: world.tokens.bob,
    id: 2,
    tasks: false,
  });
  const resultLimit = 256 * 1024;
  // Members that take any JSON: nothing but the body limit bounds how deep their values nest.
  const freeForm = fc.constantFrom<(deep: Deep) => McpCall>(
    (deep) => ({
      ...complete(''),
      params: {
        name: 'handoff_complete',
        arguments: { handoff_id: world.ids.acceptedHandoff, result: { content: [], structuredContent: { a: deep } } },
      },
    }),
    (deep) => ({
      ...complete(''),
      params: {
        name: 'handoff_complete',
        arguments: { handoff_id: world.ids.acceptedHandoff, error: { code: 1, message: 'm', data: deep } },
      },
    }),
    (deep) => ({
      ...complete(''),
      params: {
        name: 'handoff_complete',
        arguments: { handoff_id: world.ids.acceptedHandoff, result: { content: [], _meta: { a: deep } } },
      },
    }),
    (deep) => ({
      method: 'tasks/update',
      params: { taskId: world.ids.acceptedTask, inputResponses: { tone: { action: 'decline', _meta: { a: deep } } } },
      token: world.tokens.alice,
      id: 3,
      tasks: true,
    }),
    (deep) => ({
      ...create('Deep'),
      params: { name: 'handoff_create', arguments: { summary: 'Deep' }, _meta: { a: deep } },
    }),
  );
  return fc.oneof(
    fc
      .tuple(freeForm, deepValue)
      .map(([call, deep]) =>
        base(call(deep), `mcp limit: ${deep.depth} levels deep where any JSON goes`, { is: 'any' }),
      ),
    fc
      .constantFrom(1_999, 2_000, 2_001, 2_500)
      .chain((n) =>
        codePoints(n).map((summary) =>
          base(
            create(summary),
            `mcp limit: a summary of ${n} code points`,
            n > 2_000
              ? { is: 'tool-error', code: 'invalid_input' }
              : { is: 'answered', notToolCode: ['invalid_input'] },
          ),
        ),
      ),
    fc.tuple(fc.integer({ min: -3, max: 3 }), oddWellFormedString).map(([delta, odd]) => {
      // The text's length that makes the result's JSON exactly resultLimit + delta bytes.
      const frame = Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text: odd }] }), 'utf8');
      const text = odd + 'x'.repeat(resultLimit + delta - frame);
      return base(
        complete(text),
        'mcp limit: a result around 256 KiB',
        delta > 0
          ? { is: 'tool-error', code: 'too_large' }
          : { is: 'answered', notToolCode: ['too_large', 'invalid_input'] },
      );
    }),
  );
}

const builds: { weight: number; build: Build; tools?: true }[] = [
  { weight: 3, build: unchanged },
  { weight: 10, build: tamperedHeader },
  { weight: 5, build: brokenText },
  { weight: 4, build: brokenEnvelope },
  { weight: 2, build: unknownMethod },
  { weight: 10, build: changedParam },
  { weight: 2, build: extraArgument, tools: true },
  { weight: 2, build: otherMethodOrPath },
];

/** A fuzz case on /mcp: a well-formed call with one thing broken. */
export function mcpCases(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  return mcpCalls(world).chain((call) =>
    fc.oneof(
      ...builds
        .filter(({ tools }) => !tools || call.method === 'tools/call')
        .map(({ weight, build }) => ({ weight, arbitrary: build(call, world) })),
    ),
  );
}

/** A well-formed call in a body over 1 MiB (the limits property sends these). */
export function oversizedMcpCases(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  return mcpCalls(world).chain((call) => oversized(call, world));
}
