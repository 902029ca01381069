// A room's first requests: POST /mcp is answered on node:http alone, and the
// routes on Koa load at the first request that needs them (app.ts). Requests
// that arrive together while they load are each answered, as they would be
// later.
import { afterEach, expect, test } from 'vitest';
import { rpc, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(() => server?.stop());

test('requests that arrive together before the routes have loaded are each answered', async () => {
  server = await startTestServer();
  const { baseUrl, mcpUrl, restUrl } = server.http;
  const auth = { authorization: `Bearer ${server.tokens.alice}` };
  const [discovered, session, page, health, unknown] = await Promise.all([
    rpc(mcpUrl, 'server/discover', {}, { token: server.tokens.alice }),
    fetch(`${restUrl}/session`, { headers: auth }),
    fetch(`${baseUrl}/`),
    fetch(`${baseUrl}/healthz`),
    fetch(`${baseUrl}/no/such/route`, { headers: auth }),
  ]);
  expect(discovered.status).toBe(200);
  expect(discovered.body.result.supportedVersions).toEqual(['2026-07-28']);
  expect(session.status).toBe(200);
  expect(await session.json()).toMatchObject({ participant: 'alice' });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(health.status).toBe(200);
  expect(unknown.status).toBe(404);
  expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
});
