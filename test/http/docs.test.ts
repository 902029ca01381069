// The served OpenAPI document is the linted file (generated/openapi.json),
// and /docs renders every operation of it, whole, from the room itself.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations as tableOperations } from '../../generated/operations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const generated = path.resolve(import.meta.dirname, '../../generated/openapi.json');

type Operation = {
  operationId: string;
  summary: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, unknown>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

const unescape = (html: string): string =>
  html
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');

let s: TestServer;
let served: Document;
let html: string;
let docsResponse: Response;

beforeAll(async () => {
  s = await startTestServer();
  const document = await fetch(`${s.http.baseUrl}/openapi.json`);
  expect(document.status).toBe(200);
  expect(document.headers.get('content-type')).toMatch(/^application\/json\b/);
  served = (await document.json()) as Document;
  docsResponse = await fetch(`${s.http.baseUrl}/docs`);
  html = await docsResponse.text();
});

afterAll(async () => {
  await s.stop();
});

describe('GET /openapi.json', () => {
  it('serves exactly generated/openapi.json, the file redocly lint checks', () => {
    expect(served).toEqual(JSON.parse(readFileSync(generated, 'utf8')));
  });

  it('types every object a client may fill or read: openapi-typescript gives no Record<string, never>', () => {
    const types = readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi-types.ts'), 'utf8');
    // The document's own empty maps (webhooks, $defs) aside.
    expect(types.match(/^ +\S+\??: Record<string, never>;$/gm)).toBeNull();
    expect(types).toMatch(/details\?: \{\s+\[key: string\]: unknown;\s+\};/);
  });

  it('needs no session', async () => {
    const response = await fetch(`${s.http.baseUrl}/openapi.json`, { headers: { authorization: 'Bearer nope' } });
    expect(response.status).toBe(200);
  });
});

describe('GET /docs', () => {
  const operations = () =>
    Object.entries(served.paths).flatMap(([route, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ route, method, op })),
    );

  it('at /docs/ is a 308 to /docs, where its relative links lead somewhere', async () => {
    for (const [asked, target] of [
      ['/docs/', '/docs'],
      ['/docs/?x=1', '/docs?x=1'],
    ]) {
      const answer = await fetch(`${s.http.baseUrl}${asked}`, { redirect: 'manual' });
      expect(answer.status).toBe(308);
      expect(answer.headers.get('location')).toBe(target);
    }
  });

  it('is an HTML page, served without a session', () => {
    expect(docsResponse.status).toBe(200);
    expect(docsResponse.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('<title>Common Room REST API</title>');
  });

  it('renders every operation of the document: its operationId, method, path, parameters and statuses', () => {
    expect(operations()).toHaveLength(Object.keys(tableOperations).length);
    for (const { route, method, op } of operations()) {
      const section = new RegExp(`<section class="operation" id="op-${op.operationId}">([\\s\\S]*?)</section>`).exec(
        html,
      );
      expect(section, `a section for ${op.operationId}`).not.toBeNull();
      const body = unescape(section![1]!);
      expect(body).toContain(`<span class="method ${method}">${method.toUpperCase()}</span> <code>${route}</code>`);
      expect(body).toContain(`<code>${op.operationId}</code>`);
      expect(body).toContain(op.summary);
      for (const parameter of op.parameters ?? []) {
        expect(body).toContain(`<tr><td><code>${parameter.name}</code></td><td>${parameter.in}</td>`);
      }
      const requestSchema = op.requestBody?.content['application/json']?.schema.$ref.split('/').pop();
      if (requestSchema) expect(body).toContain(`<a href="#schema-${requestSchema}"><code>${requestSchema}</code></a>`);
      for (const status of Object.keys(op.responses)) expect(body).toContain(`<tr><td>${status}</td>`);
    }
    expect(html.match(/<section class="operation"/g)).toHaveLength(operations().length);
  });

  it('renders every schema, and every link on the page leads somewhere on it (or to openapi.json, beside it)', () => {
    for (const name of Object.keys(served.components.schemas)) expect(html).toContain(`id="schema-${name}"`);
    const links = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
    expect(links).toContain('openapi.json');
    for (const link of links.filter((l) => l !== 'openapi.json')) {
      expect(link).toMatch(/^#/);
      expect(html, `the target of ${link}`).toContain(`id="${link.slice(1)}"`);
    }
  });

  it('loads nothing from elsewhere: no script, no external stylesheet, font or image', () => {
    expect(html).not.toMatch(/<script\b/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/<(img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/\bsrc\s*=/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).not.toMatch(/(href|src)\s*=\s*["']?(https?:)?\/\//i);
  });
});

describe('descriptions', () => {
  it('are rendered as Markdown: code spans and lists become markup', () => {
    // The API's own description names `ce` and `npm run generate` as code.
    expect(html).toContain('<code>npm run generate</code>');
  });

  it('never carry markup of their own: raw HTML in a description is shown as text', async () => {
    const { renderDocs } = await import('../../src/http/docs.js');
    const { html: page } = await renderDocs({
      openapi: '3.1.0',
      info: { title: 'T', version: '1', description: 'Hello <script>alert(1)</script> **bold**\n\n- one\n- two' },
      paths: {},
      components: { schemas: { Thing: { description: '<img src=x onerror=alert(1)> `code`', properties: {} } } },
    });
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('<strong>bold</strong>');
    expect(page).toContain('<li>one</li>');
    expect(page).toContain('<code>code</code>');
  });
});
