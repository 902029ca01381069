// The room's page at GET /: the files scripts/build.js writes to dist/page,
// served as they are, and nothing else. The page is one more client of the
// room: it calls the REST routes and MCP like any other, with the session
// token it was opened with. Its policy lets it load only the room's own
// files, and turn only markdown-it's and diff2html's output into HTML (the
// Trusted Types policies room-markdown and room-diff).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import type Koa from 'koa';
import { Refusal } from './refusal.js';

export const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types room-markdown room-diff',
].join('; ');

/** What the page is made of: the only files served from dist/page. */
const ASSETS: Record<string, string> = {
  'room.js': 'text/javascript; charset=utf-8',
  'room.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

/** The package's root: the nearest folder above this module with a package.json (src/http/ or dist/chunks/). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

export const defaultPageDir = (): string => path.join(packageRoot(), 'dist', 'page');

function pageHeaders(ctx: Koa.Context): void {
  ctx.set('Content-Security-Policy', PAGE_POLICY);
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-cache');
}

/** Serves the page from `dir`; a page never built is 503, saying how to build it. */
export function addPageRoutes(router: Router, dir: string, before: readonly Koa.Middleware[]): void {
  const send = async (ctx: Koa.Context, name: string, type: string): Promise<void> => {
    let body: Buffer;
    try {
      body = await readFile(path.join(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new Refusal(
        503,
        'unavailable',
        `the room's page was not built (no ${name} in ${dir}): run npm run build`,
        -32050,
      );
    }
    pageHeaders(ctx);
    ctx.type = type;
    ctx.body = body;
  };
  router.get('/', ...before, (ctx) => send(ctx, 'index.html', 'text/html; charset=utf-8'));
  router.get('/page/:name', ...before, (ctx) => {
    const name = String(ctx.params.name);
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined) throw new Refusal(404, 'not_found', `no route GET ${ctx.path}`, -32601);
    return send(ctx, name, type);
  });
}
