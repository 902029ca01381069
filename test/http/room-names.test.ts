// The room answers only to its own names (DNS rebinding): a Host that is not
// one of them is refused with 403 on every route, before authentication,
// whether or not an Origin comes with it; Origin is compared with the room's
// names, never with the request's own Host. Real HTTP on 127.0.0.1, with the
// Host header set by hand (node:http, as a rebound browser would send it).
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_REFUSED_SAID } from '../../src/http/middleware/room-names.js';
import { listHandoffs, LOCAL_OPERATOR } from '../helpers/engine.js';
import { requestMeta } from '../helpers/mcp-wire.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

/** One request with exactly these headers (Host included), over a fresh connection. */
function send(
  s: TestServer,
  method: string,
  pathname: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const { port } = new URL(s.http.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: Number(port), method, path: pathname, headers, agent: false, setHost: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown = null;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const mcpBody = (method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: requestMeta() } });

/** Every kind of route the room serves, as a request with the given Host, Origin and token. */
function everyRoute(token: string) {
  const json = { 'content-type': 'application/json' };
  const auth = { authorization: `Bearer ${token}` };
  const mcp = (method: string) => ({
    ...json,
    ...auth,
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  });
  return [
    {
      name: 'POST /mcp',
      method: 'POST',
      path: '/mcp',
      headers: mcp('server/discover'),
      body: mcpBody('server/discover'),
      surface: 'mcp',
    },
    {
      name: 'GET /mcp',
      method: 'GET',
      path: '/mcp',
      headers: { ...auth, accept: 'text/event-stream' },
      surface: 'mcp',
    },
    { name: 'GET /workspace/artifact', method: 'GET', path: '/workspace/artifact', headers: auth, surface: 'rest' },
    {
      name: 'POST /workspace/handoffs',
      method: 'POST',
      path: '/workspace/handoffs',
      headers: { ...json, ...auth },
      body: JSON.stringify({ summary: 'Sent through a rebound name' }),
      surface: 'rest',
    },
    { name: 'GET /', method: 'GET', path: '/', headers: {}, surface: 'rest' },
    { name: 'GET /page/room.js', method: 'GET', path: '/page/room.js', headers: {}, surface: 'rest' },
    { name: 'GET /docs', method: 'GET', path: '/docs', headers: {}, surface: 'rest' },
    { name: 'GET /openapi.json', method: 'GET', path: '/openapi.json', headers: {}, surface: 'rest' },
    { name: 'GET /healthz', method: 'GET', path: '/healthz', headers: {}, surface: 'rest' },
    { name: 'GET /readyz', method: 'GET', path: '/readyz', headers: {}, surface: 'rest' },
    { name: 'GET /no/such/route', method: 'GET', path: '/no/such/route', headers: {}, surface: 'rest' },
  ] as const;
}

describe('a Host that is not the room’s', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());

  for (const host of ['evil.example', '127.0.0.1.evil', 'evil.example:PORT', 'localhost.evil:PORT']) {
    for (const origin of [undefined, 'http://evil.example', 'http://HOST']) {
      test(`Host: ${host}${origin ? `, Origin: ${origin}` : ''} → 403 on every route, before authentication`, async () => {
        const { port } = new URL(s.http.baseUrl);
        const hostValue = host.replace('PORT', port);
        const originValue = origin?.replace('HOST', hostValue);
        const before = listHandoffs(s.room, LOCAL_OPERATOR, {}).handoffs.length;
        for (const route of everyRoute(s.tokens.alice)) {
          for (const token of [s.tokens.alice, 'cr_not_a_token']) {
            const headers: Record<string, string> = {
              ...Object.fromEntries(
                Object.entries(route.headers).map(([k, v]) => [k, k === 'authorization' ? `Bearer ${token}` : v]),
              ),
              host: hostValue,
              ...(originValue ? { origin: originValue } : {}),
            };
            const r = await send(s, route.method, route.path, headers, 'body' in route ? route.body : undefined);
            const where = `${route.name} with Host ${hostValue}`;
            expect(r.status, where).toBe(403);
            expect(r.headers['x-content-type-options'], where).toBe('nosniff');
            const message = `the Host header names ${hostValue}, which is not a name of this room; ce serve --allow-host NAME adds one`;
            if (route.surface === 'mcp') {
              expect(r.headers['content-type'], where).toMatch(/^application\/json/);
              expect(r.body, where).toEqual({ jsonrpc: '2.0', error: { code: -32600, message } });
            } else {
              expect(r.headers['content-type'], where).toBe('application/problem+json');
              expect(r.body, where).toEqual({
                type: 'about:blank',
                title: 'Forbidden',
                status: 403,
                detail: message,
                code: 'forbidden',
              });
            }
          }
        }
        // Nothing was done through the foreign name.
        expect(listHandoffs(s.room, LOCAL_OPERATOR, {}).handoffs.length).toBe(before);
      });
    }
  }

  test('no Host at all is refused too: HTTP/1.0 by the room (403), HTTP/1.1 already by the parser (400)', async () => {
    const { port } = new URL(s.http.baseUrl);
    const raw = (head: string) =>
      new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(head));
        socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        socket.on('close', () => resolve(text)).on('error', reject);
      });
    const old = await raw('GET /openapi.json HTTP/1.0\r\n\r\n');
    expect(old).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(JSON.parse(old.slice(old.indexOf('\r\n\r\n') + 4)).detail).toBe(
      'the request has no Host header; it must name this room',
    );
    expect(await raw('GET /openapi.json HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400 Bad Request\r\n/,
    );
  });
});

describe('the room’s own names', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());

  test('127.0.0.1, localhost and [::1] with the room’s port reach every route', async () => {
    const { port } = new URL(s.http.baseUrl);
    for (const name of ['127.0.0.1', 'localhost', 'LOCALHOST', '[::1]']) {
      for (const route of everyRoute(s.tokens.alice)) {
        if (route.name === 'GET /mcp' || route.name === 'GET /no/such/route') continue; // a stream; a 404
        const r = await send(
          s,
          route.method,
          route.path,
          { ...route.headers, host: `${name}:${port}` },
          'body' in route ? route.body : undefined,
        );
        expect([200, 201], `${route.name} as ${name}: ${r.text.slice(0, 200)}`).toContain(r.status);
      }
      const missing = await send(s, 'GET', '/no/such/route', { host: `${name}:${port}` });
      expect(missing.status).toBe(404);
    }
  });

  test('the same names on another port are not the room', async () => {
    const { port } = new URL(s.http.baseUrl);
    const other = Number(port) === 65535 ? 65534 : Number(port) + 1;
    for (const host of [`127.0.0.1:${other}`, `localhost:${other}`, 'localhost', '127.0.0.1']) {
      const r = await send(s, 'GET', '/openapi.json', { host });
      expect(r.status, host).toBe(403);
    }
  });

  test('Origin is compared with the room’s names, never with the request’s own Host', async () => {
    const { port } = new URL(s.http.baseUrl);
    const host = `127.0.0.1:${port}`;
    const artifact = (origin: string) =>
      send(s, 'GET', '/workspace/artifact', { host, origin, authorization: `Bearer ${s.tokens.alice}` });
    // Another of the room's names is the room.
    expect((await artifact(`http://localhost:${port}`)).status).toBe(200);
    expect((await artifact(`http://[::1]:${port}`)).status).toBe(200);
    // A page elsewhere is not, nor the opaque origin, nor the room's name on another port.
    for (const origin of ['http://evil.example', `http://localhost:${Number(port) + 1}`]) {
      const r = await artifact(origin);
      expect(r.status, origin).toBe(403);
      expect(r.body.detail, origin).toBe(
        `origin ${origin} is not allowed: it is not a name of this room; ce serve --allow-origin ${origin} allows it`,
      );
    }
    // An origin no flag can allow is not said to be allowable.
    for (const origin of ['null', 'file://']) {
      const r = await artifact(origin);
      expect(r.status, origin).toBe(403);
      expect(r.body.detail, origin).toBe(
        `origin ${origin} is not allowed: only an http:// or https:// origin can be (a sandboxed page, or one opened from a file, has none)`,
      );
    }
  });
});

describe('--allow-host and --allow-origin', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      allowedHosts: ['rooms.example.net', 'proxy.internal:8443'],
      allowedOrigins: ['https://app.example.org'],
    });
  });
  afterAll(() => s.stop());

  test('a name allowed without a port is the room on any port; with a port, on that port only', async () => {
    const get = (host: string) => send(s, 'GET', '/openapi.json', { host });
    for (const host of [
      'rooms.example.net',
      'rooms.example.net:443',
      'ROOMS.example.net:8080',
      'proxy.internal:8443',
    ]) {
      expect((await get(host)).status, host).toBe(200);
    }
    for (const host of ['proxy.internal', 'proxy.internal:8444', 'sub.rooms.example.net', 'rooms.example.net.evil']) {
      expect((await get(host)).status, host).toBe(403);
    }
  });

  test('origins: the allowed names (http or https, behind a proxy) and the allowed origins', async () => {
    const artifact = (origin: string) =>
      send(s, 'GET', '/workspace/artifact', {
        host: 'rooms.example.net',
        origin,
        authorization: `Bearer ${s.tokens.alice}`,
      });
    for (const origin of ['https://rooms.example.net', 'http://rooms.example.net:8080', 'https://app.example.org']) {
      expect((await artifact(origin)).status, origin).toBe(200);
    }
    for (const origin of ['https://app.example.org:444', 'https://evil.example']) {
      expect((await artifact(origin)).status, origin).toBe(403);
    }
  });
});

describe('names kept in the room’s settings', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());

  const settings = (token: string, method: 'GET' | 'POST', body?: unknown) =>
    fetch(`${s.http.baseUrl}/workspace/settings`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  test('an admin adds a name and an origin; the running room answers to them at once, and drops them when cleared', async () => {
    const get = () => send(s, 'GET', '/openapi.json', { host: 'rooms.example.net' });
    const fromApp = () =>
      send(s, 'GET', '/workspace/artifact', {
        host: new URL(s.http.baseUrl).host,
        origin: 'https://app.example.org',
        authorization: `Bearer ${s.tokens.alice}`,
      });
    expect((await get()).status).toBe(403);
    expect((await fromApp()).status).toBe(403);
    expect(await settings(s.tokens.admin, 'GET')).toEqual({
      status: 200,
      body: { settings: { allowed_hosts: [], allowed_origins: [], four_eyes: false } },
    });

    const set = await settings(s.tokens.admin, 'POST', {
      allowed_hosts: ['rooms.example.net'],
      allowed_origins: ['https://app.example.org'],
    });
    expect(set).toEqual({
      status: 200,
      body: {
        settings: {
          allowed_hosts: ['rooms.example.net'],
          allowed_origins: ['https://app.example.org'],
          four_eyes: false,
        },
      },
    });
    expect((await get()).status).toBe(200);
    expect((await fromApp()).status).toBe(200);

    // One setting changed leaves the other as it was; an empty list clears it.
    const cleared = await settings(s.tokens.admin, 'POST', { allowed_hosts: [] });
    expect(cleared.body.settings).toEqual({
      allowed_hosts: [],
      allowed_origins: ['https://app.example.org'],
      four_eyes: false,
    });
    expect((await get()).status).toBe(403);
    expect((await fromApp()).status).toBe(200);
  });

  test('only admin changes them, and a value that is not a host name or an origin is refused naming it', async () => {
    const before = await settings(s.tokens.admin, 'GET');
    const notAdmin = await settings(s.tokens.alice, 'POST', { allowed_hosts: ['rooms.example.net'] });
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.detail).toBe('this session lacks the admin capability');
    for (const [body, field] of [
      [{ allowed_hosts: ['https://rooms.example.net/'] }, 'allowed_hosts.0'],
      [{ allowed_hosts: ['*.example.net'] }, 'allowed_hosts.0'],
      [{ allowed_hosts: ['rooms.example.net:99999'] }, 'allowed_hosts.0'],
      [{ allowed_origins: ['https://app.example.org/path'] }, 'allowed_origins.0'],
      [{}, 'input'],
    ] as const) {
      const r = await settings(s.tokens.admin, 'POST', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.detail, JSON.stringify(body)).toMatch(new RegExp(`^${field.replace('.', '\\.')} `));
    }
    expect(await settings(s.tokens.admin, 'GET')).toEqual(before);
  });
});

test('the operator is told of each refused Host and Origin once, and of at most MAX_REFUSED_SAID names', async () => {
  const warnings: string[] = [];
  const ignore = () => {};
  const s = await startTestServer({
    logger: {
      logsInfo: false,
      info: ignore,
      warn: (_fields, message) => warnings.push(message),
      error: ignore,
      infoLine: ignore,
    },
  });
  try {
    const port = new URL(s.http.baseUrl).port;
    const own = `127.0.0.1:${port}`;
    for (let i = 0; i < 3; i++)
      expect((await send(s, 'GET', '/healthz', { host: 'proxy.internal:8080' })).status).toBe(403);
    const fromElsewhere = { host: own, origin: 'https://app.example', authorization: `Bearer ${s.tokens.admin}` };
    for (let i = 0; i < 2; i++) {
      expect((await send(s, 'GET', '/workspace/artifact', fromElsewhere)).status).toBe(403);
    }
    expect((await send(s, 'GET', '/healthz', { host: own })).status).toBe(200);
    expect(warnings).toEqual([
      'refused requests naming Host "proxy.internal:8080", not a name of this room (ce serve --allow-host NAME adds one); said once for each name',
      'refused requests naming Origin "https://app.example", not a name of this room (ce serve --allow-origin URL allows one); said once for each name',
    ]);
    for (let i = 0; i < MAX_REFUSED_SAID + 5; i++) await send(s, 'GET', '/healthz', { host: `scan${i}.example` });
    expect(warnings).toHaveLength(MAX_REFUSED_SAID);
    expect(warnings.at(-1)).toMatch(/^refused requests naming Host "scan29\.example"/);
  } finally {
    await s.stop();
  }
});
