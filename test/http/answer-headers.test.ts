// What every answer says about itself, and the order a request is judged in:
// nosniff everywhere; no-store wherever a token or room content may be; a
// Content-Security-Policy and no referrer on the page and /docs; a token
// checked before the body is read; and a cap on the room's open streams.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { isMethod, listen, nextFrame, openSse } from '../helpers/mcp-wire.js';
import { rpc, startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.stop();
  s = undefined;
});

test('every answer is nosniff; answers with tokens or room content are no-store; the page and /docs carry a policy', async () => {
  s = await startTestServer();
  const base = s.http.baseUrl;
  const auth = { authorization: `Bearer ${s.tokens.admin}` };
  const answers = {
    artifact: await fetch(`${base}/workspace/artifact`, { headers: auth }),
    session: await fetch(`${base}/workspace/sessions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ participant: 'alice', capabilities: ['read'] }),
    }),
    refused: await fetch(`${base}/workspace/artifact`),
    unrouted: await fetch(`${base}/no/such/route`),
    openapi: await fetch(`${base}/openapi.json`),
    docs: await fetch(`${base}/docs`),
    page: await fetch(`${base}/`),
    script: await fetch(`${base}/page/room.js`),
  };
  const mcpSession = await rpc(
    s.http.mcpUrl,
    'tools/call',
    { name: 'session_create', arguments: { participant: 'bob', capabilities: ['read'] } },
    { token: s.tokens.admin },
  );
  expect(mcpSession.body.result.structuredContent.token).toMatch(/^cr_/);
  expect(answers.session.status).toBe(201);
  for (const [name, response] of [...Object.entries(answers), ['mcp session_create', mcpSession] as const]) {
    expect(response.headers.get('x-content-type-options'), name).toBe('nosniff');
  }
  for (const name of ['artifact', 'session', 'refused', 'unrouted', 'openapi', 'docs'] as const) {
    expect(answers[name].headers.get('cache-control'), name).toBe('no-store');
  }
  expect(mcpSession.headers.get('cache-control')).toBe('no-store');
  // The page's own files hold no room content: they may be kept, if checked again.
  expect(answers.page.headers.get('cache-control')).toBe('no-cache');
  expect(answers.script.headers.get('cache-control')).toBe('no-cache');

  for (const name of ['page', 'docs'] as const) {
    expect(answers[name].headers.get('referrer-policy'), name).toBe('no-referrer');
    expect(answers[name].headers.get('content-security-policy'), name).toMatch(/frame-ancestors 'none'/);
  }
  // /docs loads nothing and runs nothing: its one inline style is allowed by its hash, and only it.
  const docsPolicy = answers.docs.headers.get('content-security-policy')!;
  expect(docsPolicy).toMatch(/^default-src 'none'; /);
  expect(docsPolicy).not.toMatch(/script-src|unsafe-inline/);
  const html = await answers.docs.text();
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
  expect(styles).toHaveLength(1);
  expect(html).not.toMatch(/<script|<link|src=/);
  const hash = createHash('sha256').update(styles[0]!).digest('base64');
  expect(docsPolicy).toContain(`style-src 'sha256-${hash}'`);
});

test('a listen stream is nosniff and no-store too', async () => {
  s = await startTestServer();
  const stream = await listen(s, 'alice', { resourceSubscriptions: ['workspace:///room.md'] });
  await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
  expect(stream.response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(stream.response.headers.get('cache-control')).toBe('no-store, no-transform');
  stream.abort();
});

test('the token is checked before the body is read: no token or a bad one is 401 whatever the body', async () => {
  s = await startTestServer();
  const base = s.http.baseUrl;
  const bodies = ['{ not json', '{"__proto__":{"x":1}}', JSON.stringify({ summary: 'x'.repeat(10) })];
  for (const body of bodies) {
    for (const [path, auth] of [
      ['/workspace/handoffs', {}],
      ['/workspace/handoffs', { authorization: 'Bearer cr_not_a_token' }],
      ['/mcp', {}],
      ['/mcp', { authorization: 'Bearer cr_not_a_token' }],
    ] as const) {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
      expect(r.status, `${path} ${body}`).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    }
  }

  // The answer comes while the body is still unsent: the room never waited for it.
  const { host, port, hostname } = new URL(base);
  const answer = await new Promise<string>((resolve, reject) => {
    let text = '';
    const socket = connect(Number(port), hostname, () =>
      socket.write(
        `POST /workspace/handoffs HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 500000\r\n\r\n{"summary":`,
      ),
    );
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\r\n\r\n') && text.includes('"status":401')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
  });
  expect(answer).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
});

test('the room caps its open streams, all sessions together: past it, 503 with Retry-After', async () => {
  s = await startTestServer({ maxStreams: 2 });
  const view = { resourceSubscriptions: ['workspace:///room.md'] };
  const open = [await listen(s, 'alice', view, { id: 'a' }), await listen(s, 'bob', view, { id: 'b' })];
  for (const stream of open) await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'ack');

  const third = await rpc(s.http.mcpUrl, 'subscriptions/listen', { notifications: view }, { token: s.tokens.carol });
  expect(third.status).toBe(503);
  expect(third.headers.get('retry-after')).toBe('5');
  expect(third.body.error).toEqual({
    code: -32050,
    message: 'the room holds 2 open streams, the most it serves at once; try again later',
  });
  const legacy = await fetch(s.http.mcpUrl, {
    headers: { authorization: `Bearer ${s.tokens.carol}`, accept: 'text/event-stream' },
  });
  expect(legacy.status).toBe(503);
  expect(legacy.headers.get('retry-after')).toBe('5');
  await legacy.text();

  // A place freed is a place taken.
  const streams = s.room.bus.size;
  open[0]!.abort();
  await expect.poll(() => s!.room.bus.size).toBe(streams - 1);
  const again = await openSse(s.http.mcpUrl, {
    headers: { authorization: `Bearer ${s.tokens.carol}`, accept: 'text/event-stream' },
  });
  expect(again.response.status).toBe(200);
  for (const stream of [open[1]!, again]) stream.abort();
});
