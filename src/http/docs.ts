// The API reference page at /docs: rendered once, on the server, from the
// generated OpenAPI document. No scripts, no CDN: the room serves it whole.
// Descriptions are Markdown, rendered with raw HTML off: text in a schema
// never becomes markup.
import { createHash } from 'node:crypto';
import type MarkdownIt from 'markdown-it';

type Json = Record<string, any>;

/** markdown-it, imported at the first rendering (renderDocs): the docs are the only text the room renders from markdown. */
let markdown: InstanceType<typeof MarkdownIt>;

/** A description as block Markdown (paragraphs, lists), or as one line inside a table cell. */
const prose = (text: unknown): string => (text ? markdown.render(String(text)) : '');
const inline = (text: unknown): string => (text ? markdown.renderInline(String(text)) : '');

const escape = (text: unknown): string =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const refName = (schema: Json | undefined): string => {
  if (!schema) return '';
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
  if (schema.type) return String(schema.type);
  return 'object';
};

const schemaLink = (schema: Json | undefined): string => {
  const name = refName(schema);
  return schema?.$ref
    ? `<a href="#schema-${escape(name)}"><code>${escape(name)}</code></a>`
    : `<code>${escape(name)}</code>`;
};

function renderOperation(path: string, method: string, op: Json): string {
  const params = (op.parameters ?? []) as Json[];
  const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
  const responses = Object.entries(op.responses ?? {}) as [string, Json][];
  return `<section class="operation" id="op-${escape(op.operationId)}">
  <h3><span class="method ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3>
  <p>${inline(op.summary)} <small>(<code>${escape(op.operationId)}</code>)</small></p>
  ${prose(op.description)}
  ${
    params.length > 0
      ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>${params
          .map(
            (p) =>
              `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${schemaLink(p.schema)}</td></tr>`,
          )
          .join('')}</table>`
      : ''
  }
  ${body ? `<p>Request body (application/json): ${schemaLink(body)}</p>` : ''}
  <table><tr><th>status</th><th>meaning</th><th>body</th></tr>${responses
    .map(([status, response]) => {
      const content = (response.content ?? {}) as Record<string, Json>;
      const [type, media] = Object.entries(content)[0] ?? [];
      return `<tr><td>${escape(status)}</td><td>${inline(response.description)}</td><td>${type ? `${escape(type)} ${schemaLink(media?.schema)}` : ''}</td></tr>`;
    })
    .join('')}</table>
</section>`;
}

function renderSchema(name: string, schema: Json): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>);
  const required = new Set((schema.required ?? []) as string[]);
  return `<section class="schema" id="schema-${escape(name)}">
  <h3><code>${escape(name)}</code></h3>
  ${prose(schema.description)}
  ${
    properties.length > 0
      ? `<table><tr><th>property</th><th>required</th><th>schema</th><th>description</th></tr>${properties
          .map(
            ([prop, s]) =>
              `<tr><td><code>${escape(prop)}</code></td><td>${required.has(prop) ? 'yes' : 'no'}</td><td>${schemaLink(s)}</td><td>${inline(s.description)}</td></tr>`,
          )
          .join('')}</table>`
      : ''
  }
</section>`;
}

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem 2rem; color: #1b1f24; }
code { font: 13px ui-monospace, monospace; }
table { border-collapse: collapse; margin: .5rem 0 1rem; width: 100%; }
th, td { border-bottom: 1px solid #d6dbe1; padding: .25rem .5rem; text-align: left; vertical-align: top; }
.operation, .schema { border-top: 1px solid #aab2bd; padding-top: .25rem; }
.method { display: inline-block; min-width: 4.5rem; padding: 0 .4rem; border-radius: 4px; color: #fff; font-size: 13px; text-align: center; }
.get { background: #1f6feb; } .post { background: #1a7f37; } .delete { background: #cf222e; }
`;

/** The page's policy: nothing but its own inline style, found by its hash; no script, no frame, no form. */
const POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page, and the Content-Security-Policy it is served with. */
export async function renderDocs(openapi: Json): Promise<{ html: string; policy: string }> {
  markdown ??= new (await import('markdown-it')).default({ html: false, linkify: false });
  return { html: renderHtml(openapi), policy: POLICY };
}

function renderHtml(openapi: Json): string {
  const operations = Object.entries(openapi.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );
  const tags = (openapi.tags ?? []) as { name: string; description?: string }[];
  const schemas = Object.entries((openapi.components?.schemas ?? {}) as Record<string, Json>);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(openapi.info.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escape(openapi.info.title)} <small>${escape(openapi.info.version)}</small></h1>
${prose(openapi.info.description)}
<p>Every request carries <code>Authorization: Bearer &lt;session token&gt;</code>. Errors are <code>application/problem+json</code>. The machine-readable document is at <a href="openapi.json"><code>openapi.json</code></a>.</p>
${tags
  .map(
    (tag) => `<h2 id="tag-${escape(tag.name)}">${escape(tag.name)}</h2>${prose(tag.description)}
${operations
  .filter(({ op }) => (op.tags ?? []).includes(tag.name))
  .map(({ path, method, op }) => renderOperation(path, method, op))
  .join('\n')}`,
  )
  .join('\n')}
<h2 id="schemas">Schemas</h2>
${schemas.map(([name, schema]) => renderSchema(name, schema)).join('\n')}
</body>
</html>
`;
}
