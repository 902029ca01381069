// A room under a path prefix (--base-path), as a proxy that routes many rooms
// by path reaches it: MCP (the official client, a whole handoff), REST (its
// Location headers), the page and its files, /docs, the OpenAPI document,
// the probes and every URL the room gives are under the prefix; nothing
// answers outside it, and a request there changes nothing.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readRuntimeFile } from '../../src/http/runtime-file.js';
import { createRawDispatcher, connectClient } from '../helpers/mcp-clients.js';
import { wholeHandoff } from '../helpers/interop.js';
import { rpc, startTestServer, type TestServer } from '../helpers/server.js';
import { parseBasePath, underBasePath } from '../../src/http/base-path.js';

const BASE = '/rooms/notes';
let server: TestServer;
let origin: string;

beforeAll(async () => {
  server = await startTestServer({ basePath: BASE });
  origin = new URL(server.http.baseUrl).origin;
});
afterAll(() => server.stop());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${origin}${path}`, {
    headers: { authorization: `Bearer ${server.tokens.alice}`, ...headers },
    redirect: 'manual',
  });

const handoffCount = (): number =>
  (server.room.sidecar.db.prepare('SELECT count(*) AS n FROM handoffs').get() as { n: number }).n;

describe('--base-path', () => {
  test('is a path of plain segments, normalised; anything else is not one', () => {
    expect(parseBasePath('/rooms/notes/')).toBe('/rooms/notes');
    expect(parseBasePath('/')).toBe('');
    for (const bad of ['rooms', '/rooms//a', '/rooms/../a', '/a b', '/a?b', '/a#b', 'http://x/a', '/%2e%2e', '']) {
      expect(parseBasePath(bad), bad).toBeNull();
    }
    expect(underBasePath(BASE, '/rooms/notes/mcp?x')).toEqual({ inside: '/mcp?x' });
    expect(underBasePath(BASE, '/rooms/notes?x=1')).toEqual({ bare: '/rooms/notes/?x=1' });
    expect(underBasePath(BASE, '/rooms/notesx/mcp')).toEqual({ outside: true });
  });

  test('every URL the room gives is under the prefix: its address, MCP, REST and the runtime file', () => {
    expect(server.http.baseUrl).toBe(`${origin}${BASE}`);
    expect(server.http.mcpUrl).toBe(`${origin}${BASE}/mcp`);
    expect(server.http.restUrl).toBe(`${origin}${BASE}/workspace`);
    expect(readRuntimeFile(server.room.artifactPath)).toMatchObject({
      base_url: `${origin}${BASE}`,
      mcp_url: `${origin}${BASE}/mcp`,
      rest_url: `${origin}${BASE}/workspace`,
    });
  });

  test('the official MCP client runs a whole handoff under the prefix', async () => {
    const owner = await createRawDispatcher(server.http.mcpUrl, server.tokens.alice, { name: 'alice' });
    const assignee = await connectClient(server.http.mcpUrl, server.tokens.bob, { name: 'bob' });
    const approver = await connectClient(server.http.mcpUrl, server.tokens.dave, { name: 'dave' });
    try {
      const { done } = await wholeHandoff({ owner, assignee, approver, approverName: 'dave' });
      expect(done.status).toBe('completed');
    } finally {
      await Promise.all([owner.close(), assignee.close(), approver.close()]);
    }
  });

  test('REST: a created handoff is at the Location given, under the prefix', async () => {
    const created = await fetch(`${server.http.restUrl}/handoffs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ summary: 'Under a prefix', assignee: 'bob' }),
    });
    expect(created.status).toBe(201);
    const { handoff } = (await created.json()) as { handoff: { handoff_id: string } };
    const location = created.headers.get('location')!;
    expect(location).toBe(`${BASE}/workspace/handoffs/${handoff.handoff_id}`);
    const read = await get(location);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ handoff: { handoff_id: handoff.handoff_id, summary: 'Under a prefix' } });
  });

  test('the page, its files, /docs, the OpenAPI document and the probes are under the prefix', async () => {
    const page = await get(`${BASE}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // Relative to the page's address, so they follow the prefix (the page finds the room from its script's URL).
    expect(html).toContain('<script type="module" src="page/room.js"></script>');
    expect(html).not.toMatch(/(?:src|href)="\//);
    expect((await get(`${BASE}/page/room.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    const openapi = (await (await get(`${BASE}/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(openapi.servers).toEqual([{ url: BASE, description: 'the room process' }]);
    const docs = await (await get(`${BASE}/docs`)).text();
    expect(docs).toContain('<a href="openapi.json">');
    expect(docs).not.toMatch(/href="\//);
    expect((await get(`${BASE}/healthz`)).status).toBe(200);
    expect((await get(`${BASE}/readyz`)).status).toBe(200);
  });

  test('the prefix alone is sent on to the page at the prefix with its slash, its query kept', async () => {
    const bare = await get(BASE);
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe(`${BASE}/`);
    expect((await get(`${BASE}?from=proxy`)).headers.get('location')).toBe(`${BASE}/?from=proxy`);
    const posted = await fetch(`${origin}${BASE}`, { method: 'POST', body: '{}' });
    expect(posted.status).toBe(404);
  });

  test('nothing answers outside the prefix, and a request there changes nothing', async () => {
    const before = handoffCount();
    const create = await rpc(
      `${origin}/mcp`,
      'tools/call',
      { name: 'handoff_create', arguments: { summary: 'Outside', assignee: 'bob' } },
      { token: server.tokens.alice },
    );
    expect(create.status).toBe(404);
    expect(create.body).toMatchObject({
      code: 'not_found',
      detail: `no route POST /mcp: this room is served under ${BASE}/`,
    });
    const posted = await fetch(`${origin}/workspace/handoffs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ summary: 'Outside', assignee: 'bob' }),
    });
    expect(posted.status).toBe(404);
    for (const path of ['/', '/page/room.js', '/docs', '/healthz', '/rooms/notesx/mcp', '/rooms/mcp']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
      expect(((await answer.json()) as { detail: string }).detail, path).toContain(`served under ${BASE}/`);
    }
    expect(handoffCount()).toBe(before);
  });

  test('Host is checked first, outside the prefix too', async () => {
    const { port } = new URL(origin);
    for (const path of ['/mcp', `${BASE}/mcp`, BASE]) {
      const status = await new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port: Number(port), path, headers: { host: 'rebound.example' }, setHost: false },
          (response) => {
            response.resume();
            resolve(response.statusCode!);
          },
        );
        request.on('error', reject).end();
      });
      expect(status, path).toBe(403);
    }
  });
});
