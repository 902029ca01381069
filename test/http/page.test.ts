// The room's page as HTTP: GET / and its assets from dist/page with a strict
// policy, nothing else of the folder, and a page never built said so.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_POLICY } from '../../src/http/page.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

const get = (server: TestServer, pathname: string, init: RequestInit = {}) =>
  fetch(`${server.http.baseUrl}${pathname}`, init);

describe('GET / and the page assets', () => {
  it.each([
    ['/', 'text/html; charset=utf-8', '<script type="module" src="page/room.js"></script>'],
    ['/page/room.js', 'text/javascript; charset=utf-8', 'room-markdown'],
    ['/page/room.css', 'text/css; charset=utf-8', 'prefers-color-scheme:dark'],
    ['/page/icon.svg', 'image/svg+xml', '<svg'],
  ])('%s: 200 %s with the page policy, no token needed', async (pathname, type, content) => {
    const response = await get(s, pathname);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect(await response.text()).toContain(content);
    expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('the policy allows the room itself and nothing else, and only markdown-it and diff2html output becomes HTML', () => {
    const directives = Object.fromEntries(
      PAGE_POLICY.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1).join(' ')]),
    );
    expect(directives).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self'",
      'connect-src': "'self'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
      'require-trusted-types-for': "'script'",
      'trusted-types': 'room-markdown room-diff',
    });
  });

  it('the page has no inline script or style and loads nothing from another origin', async () => {
    const html = await (await get(s, '/')).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/<style|style=/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const js = await (await get(s, '/page/room.js')).text();
    expect(js).not.toMatch(/https?:\/\/(?!www\.w3\.org|github\.com|spec\.commonmark\.org)[a-z]/i);
  });

  it.each(['/page/room.js.LEGAL.txt', '/page/../package.json', '/page/%2e%2e%2fpackage.json', '/page/', '/index.html'])(
    'GET %s: 404, only the page files are served',
    async (pathname) => {
      const response = await get(s, pathname);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    },
  );

  it('POST /: 405 with Allow', async () => {
    const response = await get(s, '/', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
  });
});

describe('a page that was never built', () => {
  let unbuilt: TestServer;
  beforeAll(async () => {
    unbuilt = await startTestServer({ pageDir: path.join(mkdtempSync(path.join(tmpdir(), 'ce-page-')), 'page') });
  });
  afterAll(() => unbuilt.stop());

  it('GET /: 503 saying the page was not built and how to build it', async () => {
    const response = await get(unbuilt, '/');
    expect(response.status).toBe(503);
    const problem = (await response.json()) as { detail: string };
    expect(problem).toMatchObject({ status: 503, code: 'unavailable' });
    expect(problem.detail).toMatch(/^the room's page was not built \(no index\.html in .+\): run npm run build$/);
  });

  it('the REST API and MCP are served as ever', async () => {
    const response = await get(unbuilt, '/workspace/artifact', {
      headers: { authorization: `Bearer ${unbuilt.tokens.alice}` },
    });
    expect(response.status).toBe(200);
  });
});
