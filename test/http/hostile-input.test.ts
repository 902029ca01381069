// Requests an attacker would send, over real HTTP: prototype keys, bodies
// that are not JSON by their content type or their bytes, unknown paths and
// wrong methods. Each is refused with a clear error in its surface's own
// format, and the database is the same afterwards, row for row.
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateProblemDetails } from '../../generated/validators.js';
import { mcpHeaders, post, requestMeta } from '../helpers/mcp-wire.js';
import { dumpDatabase } from '../helpers/room.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let rest: string;
let mcp: string;

beforeAll(async () => {
  s = await startTestServer();
  rest = `${s.http.baseUrl}/workspace`;
  mcp = s.http.mcpUrl;
});
afterAll(async () => {
  await s.stop();
});

const restHeaders = (token: string, type = 'application/json') => ({
  authorization: `Bearer ${token}`,
  'content-type': type,
});

/** Runs `send` and asserts that not one row of the sidecar changed. */
async function unchanged<T>(send: () => Promise<T>): Promise<T> {
  const before = dumpDatabase(s.room);
  const answer = await send();
  expect(dumpDatabase(s.room)).toEqual(before);
  return answer;
}

function expectProblemBody(r: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(validateProblemDetails(r.body), JSON.stringify(validateProblemDetails.errors)).toBe(true);
  expect(r.body).toMatchObject({ status, code });
}

describe('prototype keys', () => {
  const bodies: [string, string, string][] = [
    ['__proto__ at the top', '{"__proto__":{"summary":"x"}}', 'a forbidden key __proto__ (at /__proto__)'],
    [
      '__proto__ escaped as \\u005f',
      '{"\\u005f_proto__":{"summary":"x"}}',
      'a forbidden key __proto__ (at /__proto__)',
    ],
    [
      '__proto__ nested in an artifact',
      '{"summary":"x","artifacts":[{"uri":"workspace:///a","__proto__":{"title":"t"}}]}',
      'a forbidden key __proto__ (at /artifacts/0/__proto__)',
    ],
    [
      'constructor.prototype',
      '{"summary":"x","constructor":{"prototype":{"summary":"y"}}}',
      'a forbidden key constructor.prototype (at /constructor/prototype)',
    ],
  ];

  it.each(bodies)('REST: %s is 400 naming the key, and nothing is created', async (_name, body, where) => {
    const r = await unchanged(() => post(`${rest}/handoffs`, body, restHeaders(s.tokens.alice)));
    expectProblemBody(r, 400, 'invalid_input');
    expect(r.body.detail).toBe(`the request body has ${where}; such keys are refused anywhere in a document`);
  });

  it.each(bodies)('MCP: %s in tool arguments is 400 / -32700, and nothing is created', async (_name, args, where) => {
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"handoff_create","arguments":${args},"_meta":${JSON.stringify(requestMeta())}}}`;
    const r = await unchanged(() =>
      post(mcp, body, mcpHeaders('tools/call', s.tokens.alice, { 'mcp-name': 'handoff_create' })),
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32700,
        message: `the request body has ${where.replace('(at /', '(at /params/arguments/')}; such keys are refused anywhere in a document`,
      },
    });
  });

  it('MCP: __proto__ in _meta cannot declare the Tasks extension', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"tk_x","_meta":{"__proto__":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}}`;
    const r = await unchanged(() => post(mcp, body, mcpHeaders('tasks/get', s.tokens.alice, { 'mcp-name': 'tk_x' })));
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32700);
  });

  it('a prototype key spelled as data elsewhere (a string value) is just text', async () => {
    const r = await post(
      `${rest}/handoffs`,
      '{"summary":"__proto__ and constructor.prototype"}',
      restHeaders(s.tokens.alice),
    );
    expect(r.status).toBe(201);
    expect(r.body.handoff.summary).toBe('__proto__ and constructor.prototype');
  });
});

describe('bodies that are not JSON', () => {
  it('REST: bytes that are not UTF-8 are 400, and nothing is created', async () => {
    const bytes = Buffer.concat([Buffer.from('{"summary":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const r = await unchanged(async () => {
      const response = await fetch(`${rest}/handoffs`, {
        method: 'POST',
        headers: restHeaders(s.tokens.alice),
        body: bytes,
      });
      return {
        status: response.status,
        headers: response.headers,
        body: (await response.json()) as { detail: string },
      };
    });
    expectProblemBody(r, 400, 'invalid_input');
    expect(r.body.detail).toBe('the request body is not valid UTF-8');
  });

  it('REST: malformed JSON is 400', async () => {
    const r = await unchanged(() => post(`${rest}/handoffs`, '{"summary":', restHeaders(s.tokens.alice)));
    expectProblemBody(r, 400, 'invalid_input');
    expect(r.body.detail).toBe('the request body is not valid JSON');
  });

  it('REST: a +json type and a UTF-8 charset are JSON', async () => {
    const r = await post(
      `${rest}/handoffs`,
      '{"summary":"typed"}',
      restHeaders(s.tokens.alice, 'application/vnd.room+json; charset=UTF-8'),
    );
    expect(r.status).toBe(201);
  });

  it.each([
    ['none', null, 'none was given'],
    ['text/plain', 'text/plain', 'it was text/plain'],
    ['a form', 'application/x-www-form-urlencoded', 'it was application/x-www-form-urlencoded'],
  ])('MCP: a body sent as %s is 415 / -32600', async (_name, type, given) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: requestMeta() } });
    const r = await unchanged(async () => {
      const response = await fetch(mcp, {
        method: 'POST',
        headers: mcpHeaders('tools/list', s.tokens.alice, { 'content-type': type }),
        body: new TextEncoder().encode(body),
      });
      return { status: response.status, body: await response.json() };
    });
    expect(r).toEqual({
      status: 415,
      body: {
        jsonrpc: '2.0',
        error: { code: -32600, message: `the request body must be sent as Content-Type: application/json (${given})` },
      },
    });
  });

  it('a compressed body is 415 saying to send it uncompressed, over REST and MCP; gzip and a readable br alike', async () => {
    const gzipped = new Uint8Array(gzipSync('{"summary":"zipped"}'));
    for (const [coding, body] of [
      ['gzip', gzipped],
      ['br', new TextEncoder().encode('{"summary":"not really br"}')],
    ] as const) {
      const r = await unchanged(async () => {
        const response = await fetch(`${rest}/handoffs`, {
          method: 'POST',
          headers: { ...restHeaders(s.tokens.alice), 'content-encoding': coding },
          body,
        });
        return { status: response.status, headers: response.headers, body: (await response.json()) as any };
      });
      expectProblemBody(r, 415, 'unsupported_media_type');
      expect(r.body.detail).toBe(`the request body must be sent uncompressed (it was Content-Encoding: ${coding})`);
      expect(r.headers.get('accept-encoding')).toBe('identity');
    }
    const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: requestMeta() } });
    const response = await fetch(mcp, {
      method: 'POST',
      headers: mcpHeaders('tools/list', s.tokens.alice, { 'content-encoding': 'gzip' }),
      body: new Uint8Array(gzipSync(message)),
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as any).error).toEqual({
      code: -32600,
      message: 'the request body must be sent uncompressed (it was Content-Encoding: gzip)',
    });
  });

  it('MCP: an empty body is 400 / -32700', async () => {
    const r = await post(mcp, '', mcpHeaders('tools/list', s.tokens.alice));
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({ code: -32700, message: 'the request body is empty; send one JSON-RPC message' });
  });
});

describe('paths and methods', () => {
  it.each([
    '/nope',
    '/page',
    '/page/index.html',
    '/page/%2e%2e%2fpackage.json',
    '/workspace',
    '/workspace/handoffs/x/y/z',
    '/workspace/%2e%2e/%2e%2e/etc/passwd',
  ])('GET %s: 404 problem+json', async (pathname) => {
    const response = await fetch(`${s.http.baseUrl}${pathname}`, {
      headers: { authorization: `Bearer ${s.tokens.alice}` },
    });
    const r = { status: response.status, headers: response.headers, body: await response.json() };
    expectProblemBody(r, 404, 'not_found');
  });

  it.each([
    ['PUT', '/workspace/handoffs', 'GET, HEAD, POST'],
    ['DELETE', '/workspace/artifact', 'HEAD, GET'],
    ['POST', '/openapi.json', 'HEAD, GET'],
  ])('%s %s: 405 problem+json with Allow', async (method, pathname, allow) => {
    const response = await fetch(`${s.http.baseUrl}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${s.tokens.alice}` },
    });
    const r = { status: response.status, headers: response.headers, body: await response.json() };
    expectProblemBody(r, 405, 'method_not_allowed');
    expect(new Set(response.headers.get('allow')!.split(', '))).toEqual(new Set(allow.split(', ')));
  });

  it('TRACE (a method no route takes anywhere): 404 on a path that is no route, 405 with Allow on one that is', async () => {
    const trace = (pathname: string) =>
      new Promise<{ status: number; allow: string | undefined; type: string | undefined; body: any }>(
        (resolve, reject) => {
          const request = http.request(`${s.http.baseUrl}${pathname}`, { method: 'TRACE' }, (response) => {
            let text = '';
            response.on('data', (chunk) => (text += chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode!,
                allow: response.headers.allow,
                type: response.headers['content-type'],
                body: JSON.parse(text),
              }),
            );
          });
          request.on('error', reject);
          request.end();
        },
      );
    const unknown = await trace('/nope');
    expect(unknown).toMatchObject({ status: 404, allow: undefined, body: { status: 404, code: 'not_found' } });
    expect(unknown.type).toMatch(/^application\/problem\+json/);
    const known = await trace('/workspace/artifact');
    expect(known).toMatchObject({ status: 405, body: { status: 405, code: 'method_not_allowed' } });
    expect(new Set(known.allow!.split(', '))).toEqual(new Set(['HEAD', 'GET']));
  });

  it('a route matches in any case and with a trailing slash; HEAD answers as GET with no body; OPTIONS names the methods', async () => {
    const auth = { authorization: `Bearer ${s.tokens.alice}` };
    const plain = await fetch(`${s.http.restUrl}/artifact`, { headers: auth });
    const body = await plain.text();
    for (const pathname of ['/WORKSPACE/Artifact', '/workspace/artifact/']) {
      const other = await fetch(`${s.http.baseUrl}${pathname}`, { headers: auth });
      expect(other.status).toBe(200);
      expect(await other.text()).toBe(body);
    }
    const head = await fetch(`${s.http.restUrl}/artifact`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await head.text()).toBe('');
    const options = await fetch(`${s.http.restUrl}/handoffs`, { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('POST, HEAD, GET');
    expect(await options.text()).toBe('');
    const wrong = await fetch(`${s.http.restUrl}/handoffs`, { method: 'PUT', headers: auth });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, HEAD, GET');
    expect(await wrong.json()).toMatchObject({
      code: 'method_not_allowed',
      detail: 'PUT is not allowed on /workspace/handoffs (allowed: POST, HEAD, GET)',
    });
  });

  it.each(['PUT', 'DELETE', 'PATCH'])('%s /mcp: 405 with a JSON-RPC error and Allow', async (method) => {
    const response = await fetch(s.http.mcpUrl, { method, headers: { authorization: `Bearer ${s.tokens.alice}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'method not allowed: /mcp takes POST (and GET for the legacy stream)' },
    });
  });

  it('HEAD /mcp: 405 with Allow, where it opened the legacy stream', async () => {
    const response = await fetch(s.http.mcpUrl, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${s.tokens.alice}` },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(response.headers.get('content-type')).not.toMatch(/event-stream/);
  });
});

describe('a file an outside edit left not UTF-8', () => {
  it('REST reading and approving answer 409 saying why, MCP reading -32009; the bytes stay as they are', async () => {
    const proposed = await post(
      `${rest}/proposals`,
      { base_revision: 1, content: '# Proposed\n', summary: 'A change' },
      restHeaders(s.tokens.alice),
    );
    expect(proposed.status).toBe(201);
    const latin1 = Buffer.from('# Caf\xe9\n', 'latin1');
    writeFileSync(s.artifact, latin1);
    const why =
      /^the artifact room\.md is not UTF-8 text since an outside edit \(byte 0xE9 at offset 5 is not valid UTF-8\)/;

    const read = await fetch(`${rest}/artifact`, { headers: { authorization: `Bearer ${s.tokens.alice}` } });
    const readBody = { status: read.status, headers: read.headers, body: (await read.json()) as { detail: string } };
    expectProblemBody(readBody, 409, 'conflict');
    expect(readBody.body.detail).toMatch(why);

    const approve = await unchanged(() =>
      post(`${rest}/proposals/${proposed.body.proposal.proposal_id}/approve`, {}, restHeaders(s.tokens.dave)),
    );
    expectProblemBody(approve, 409, 'conflict');
    expect(approve.body.detail).toMatch(why);

    const resource = await post(
      mcp,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'resources/read',
        params: { uri: 'workspace:///room.md', _meta: requestMeta() },
      },
      mcpHeaders('resources/read', s.tokens.alice, { 'mcp-name': 'workspace:///room.md' }),
    );
    expect(resource.status).toBe(200);
    expect(resource.body.error).toMatchObject({ code: -32009, data: { code: 'conflict', reason: 'not_text' } });
    expect(resource.body.error.message).toMatch(why);
    expect(readFileSync(s.artifact)).toEqual(latin1);
  });
});

describe('nesting', () => {
  const deep = (levels: number, inside = '1') => `${'['.repeat(levels)}${inside}${']'.repeat(levels)}`;
  const mcpBody = (args: string) =>
    `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"handoff_create","arguments":${args},"_meta":${JSON.stringify(requestMeta())}}}`;
  const mcpPost = (args: string) =>
    post(mcp, mcpBody(args), mcpHeaders('tools/call', s.tokens.alice, { 'mcp-name': 'handoff_create' }));

  it.each([
    ['65 levels', 63],
    ['100,000 arrays with __proto__ inside', 100_000],
  ])('REST: %s is 400 before anything walks it, and nothing is created', async (_name, levels) => {
    const body = `{"summary":"x","artifacts":${deep(levels, '{"__proto__":{}}')}}`;
    const r = await unchanged(() => post(`${rest}/handoffs`, body, restHeaders(s.tokens.alice)));
    expectProblemBody(r, 400, 'invalid_input');
    expect(r.body.detail).toBe('the request body nests deeper than 64 levels of objects and arrays');
  });

  it.each([
    ['65 levels', 61],
    ['100,000 arrays with __proto__ inside', 100_000],
  ])('MCP: %s is 400 / -32600, and nothing is created', async (_name, levels) => {
    const r = await unchanged(() => mcpPost(`{"summary":"x","artifacts":${deep(levels, '{"__proto__":{}}')}}`));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'the request body nests deeper than 64 levels of objects and arrays' },
    });
  });

  it('64 levels are read and judged by the schema: a tool error naming the field', async () => {
    // The envelope is three levels (the message, params, arguments); the arguments object one more.
    const r = await unchanged(() => mcpPost(`{"summary":"x","artifacts":${deep(60)}}`));
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.error.code).toBe('invalid_input');
  });
});

describe('many mistakes in one body', () => {
  const keys = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 1]));

  it('REST: 50,000 unknown keys are refused naming the first 20 and counting the rest; the answer stays small', async () => {
    const body = JSON.stringify({ summary: 'x', ...keys });
    const r = await unchanged(() => post(`${rest}/handoffs`, body, restHeaders(s.tokens.alice)));
    expectProblemBody(r, 400, 'invalid_input');
    expect(r.body.details.errors).toHaveLength(20);
    expect(r.body.details.errors[0]).toMatchObject({ path: '/k0', keyword: 'additionalProperties' });
    expect(r.body.detail).toMatch(/; and 49980 more$/);
    expect(JSON.stringify(r.body).length).toBeLessThan(8_000);
  });

  it('MCP: the same as a tool error', async () => {
    const r = await unchanged(() =>
      post(
        mcp,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 8,
          method: 'tools/call',
          params: { name: 'handoff_create', arguments: { summary: 'x', ...keys }, _meta: requestMeta() },
        }),
        mcpHeaders('tools/call', s.tokens.alice, { 'mcp-name': 'handoff_create' }),
      ),
    );
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.error.details.errors).toHaveLength(20);
    expect(JSON.stringify(r.body).length).toBeLessThan(16_000);
  });
});

describe('strings that are not valid Unicode', () => {
  it('REST: a lone surrogate is 400 naming the field and where, never stored as U+FFFD', async () => {
    const r = await unchanged(() => post(`${rest}/handoffs`, '{"summary":"abc\\ud800"}', restHeaders(s.tokens.alice)));
    expectProblemBody(r, 400, 'invalid_input');
    expect(r.body.detail).toBe('summary is not valid Unicode: it holds a lone surrogate (U+D800) at index 3');
  });

  it('REST: in a key, and a low surrogate alone, likewise', async () => {
    const key = await unchanged(() =>
      post(`${rest}/handoffs`, '{"summary":"x","artifacts":[{"uri":"a","\\udc00":1}]}', restHeaders(s.tokens.alice)),
    );
    expectProblemBody(key, 400, 'invalid_input');
    expect(key.body.detail).toBe(
      'a key of artifacts.0 is not valid Unicode: it holds a lone surrogate (U+DC00) at index 0',
    );
  });

  it('MCP: 400 / -32602 naming params.arguments.summary', async () => {
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"handoff_create","arguments":{"summary":"\\ud83d"},"_meta":${JSON.stringify(requestMeta())}}}`;
    const r = await unchanged(() =>
      post(mcp, body, mcpHeaders('tools/call', s.tokens.alice, { 'mcp-name': 'handoff_create' })),
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32602,
        message: 'params.arguments.summary is not valid Unicode: it holds a lone surrogate (U+D83D) at index 0',
      },
    });
  });

  it('a pair written as two escapes is one character, and is stored as it was sent', async () => {
    const r = await post(`${rest}/handoffs`, '{"summary":"rocket \\ud83d\\ude80"}', restHeaders(s.tokens.alice));
    expect(r.status).toBe(201);
    expect(r.body.handoff.summary).toBe('rocket 🚀');
  });
});

describe('names, titles and summaries', () => {
  const create = (body: unknown) => post(`${rest}/handoffs`, body, restHeaders(s.tokens.alice));

  it.each([
    ['a right-to-left override', 'pay \u202Eevil', 'U+202E at index 4'],
    ['a bidi isolate', 'a\u2066b', 'U+2066 at index 1'],
    ['a zero-width space', 'a\u200Bb', 'U+200B at index 1'],
    ['a BOM', '\uFEFFx', 'U+FEFF at index 0'],
    ['a carriage return', 'one\r\ntwo', 'U+000D at index 3'],
    ['an escape', 'x\u001B[31m', 'U+001B at index 1'],
  ])('a summary with %s is 400 naming the character, and nothing is created', async (_name, summary, found) => {
    const r = await unchanged(() => create({ summary }));
    expectProblemBody(r, 400, 'invalid_input');
    expect(r.body.detail).toBe(
      `summary must not contain control (but tab and line feed), bidi-control or invisible characters (${found})`,
    );
  });

  it('a title is one line: a line feed in it is refused', async () => {
    const r = await unchanged(() => create({ summary: 'x', artifacts: [{ uri: 'a', title: 'one\ntwo' }] }));
    expectProblemBody(r, 400, 'invalid_input');
    expect(r.body.detail).toBe(
      'artifacts.0.title must not contain control, bidi-control or invisible characters (U+000A at index 3)',
    );
  });

  it('lines, tabs, emoji joined by ZWJ and Persian with ZWNJ are text and kept', async () => {
    const summary = 'Two lines:\n\tfamily 👨\u200D👩\u200D👧 and می\u200Cخواهم';
    const r = await create({ summary });
    expect(r.status).toBe(201);
    expect(r.body.handoff.summary).toBe(summary);
  });

  it('free text keeps what a summary may not: constraints with a bidi mark', async () => {
    const r = await create({ summary: 'x', constraints: 'a\u202Eb\r\n' });
    expect(r.status).toBe(201);
    expect(r.body.handoff.constraints).toBe('a\u202Eb\r\n');
  });

  it('participant names are unique ignoring case: Alice cannot join beside alice', async () => {
    const add = (name: string) => post(`${rest}/participants`, { name }, restHeaders(s.tokens.admin));
    const r = await unchanged(() => add('Alice'));
    expectProblemBody(r, 409, 'conflict');
    expect(r.body.detail).toBe('Alice cannot join beside alice: participant names are unique ignoring case');
    expect((await add('erin')).status).toBe(201);
    expect(
      (await fetch(`${rest}/participants/erin`, { method: 'DELETE', headers: restHeaders(s.tokens.admin) })).status,
    ).toBe(200);
    const removedTwin = await unchanged(() => add('ERIN'));
    expectProblemBody(removedTwin, 409, 'conflict');
    expect(removedTwin.body.detail).toBe(
      'ERIN reads as erin, a removed participant (names are unique ignoring case): add erin to bring it back',
    );
    expect((await add('erin')).status).toBe(201);
  });
});
