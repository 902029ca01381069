// Every route but POST /mcp and REST's operations, on Koa: GET /mcp, the
// page, /docs, /openapi.json, the probes and /metrics, each a few small
// middlewares composed once, ending in its own error funnel (JSON-RPC
// errors, or problem+json), and a path no route has. Made at the room's
// first request that needs it (app.ts), and Koa and its router imported
// then: they and what they bring are the largest part of a room's code, and
// neither the room's start nor an MCP client's calls need them.
import type Router from '@koa/router';
import type Koa from 'koa';
import { requireActorCapability, type Actor, type Room } from '../engine/index.js';
import type { McpServer } from '../mcp/server.js';
import type { AppOptions } from './app-options.js';
import type { BasePathDoor } from './base-path-door.js';
import type { StreamRegistry } from './mcp/streams.js';
import type { RoomNames } from './middleware/room-names.js';
import type { RequestObserver } from './observe/observe-requests.js';
import type { RoomMetrics } from './observe/room-metrics.js';
import { bearerToken, type mcpCaller, type requestActor } from './authenticate.js';
import { addHealthRoutes } from './health.js';
import { answerErrorsAsJsonRpc, mcpMethodNotAllowed } from './mcp/errors.js';
import { legacyResourceStream } from './mcp/legacy.js';
import { requestId } from './middleware/request-id.js';
import { checkOrigin, hostRefusal } from './middleware/room-names.js';
import { observeRequests } from './observe/observe-requests.js';
import { refusedWhy } from './observe/request-facts.js';
import { BASE_HEADERS } from './node-answer.js';
import { addPageRoutes, defaultPageDir } from './page.js';
import { answerErrorsAsProblems, answerUnroutedAsProblems } from './rest/problem.js';

const baseHeaders: Koa.Middleware = async (ctx, next) => {
  ctx.set(BASE_HEADERS);
  await next();
};

/** What POST /mcp and the Koa app of a room share, made once by app.ts. */
export interface RoomParts {
  room: Room;
  options: AppOptions;
  streams: StreamRegistry;
  names: RoomNames;
  server: McpServer;
  /** Who a request is (authenticate.ts), and who an MCP request is. */
  actor: ReturnType<typeof requestActor>;
  caller: ReturnType<typeof mcpCaller>;
  log: (message: string) => void;
  metrics: RoomMetrics | undefined;
  observe: RequestObserver | null;
  /** Where a request falls under --base-path; null without one. */
  door: BasePathDoor | null;
}

/** Who `ctx` is; a token refused is remembered in ctx.state.refused for the request's log line (refusedWhy). */
function remembering<T>(ctx: Koa.Context, who: (ctx: Koa.Context) => T): T {
  try {
    return who(ctx);
  } catch (error) {
    ctx.state.refused = refusedWhy(error);
    throw error;
  }
}

/**
 * The Koa app of a room. Every request must name the room in Host, and is
 * authenticated before its body is read.
 */
export async function koaApp(parts: RoomParts): Promise<Koa> {
  const { room, options, streams, names, server, actor, caller, log, metrics, observe, door } = parts;
  const [{ default: KoaApplication }, { default: KoaRouter }] = await Promise.all([
    import('koa'),
    import('@koa/router'),
  ]);
  const app = new KoaApplication();
  const origin = checkOrigin(names);

  const mcp = new KoaRouter();
  const asJsonRpc = answerErrorsAsJsonRpc(log);
  const mcpAuthenticated: Koa.Middleware = async (ctx, next) => {
    ctx.state.caller = remembering(ctx, caller);
    await next();
  };
  // Before GET, which the router also answers HEAD with: a HEAD would open the legacy stream.
  mcp.head('/mcp', asJsonRpc, mcpMethodNotAllowed);
  mcp.get('/mcp', asJsonRpc, origin, mcpAuthenticated, legacyResourceStream(room, streams, server.legacySubscriptions));
  mcp.all('/mcp', asJsonRpc, mcpMethodNotAllowed);

  const asProblems = answerErrorsAsProblems(log);
  const authenticated: Koa.Middleware = async (ctx, next) => {
    ctx.state.actor = remembering(ctx, actor);
    await next();
  };
  const base = options.basePath ?? '';
  const routes = new KoaRouter();
  // Read at its first request, like the docs rendered from it: neither is in the room's start.
  let openapi: Promise<Record<string, unknown>> | undefined;
  const openapiDocument = () =>
    (openapi ??= import('./openapi-document.js').then(({ default: document }) =>
      base === '' ? document : { ...document, servers: [{ ...document.servers[0], url: base }] },
    ));
  routes.get('/openapi.json', asProblems, origin, async (ctx) => {
    ctx.body = await openapiDocument();
  });
  let docs: Promise<{ html: string; policy: string }> | undefined;
  routes.get('/docs', asProblems, origin, async (ctx) => {
    if (ctx.path.endsWith('/')) {
      // Its links are relative to /docs: at /docs/ they would point into a folder that is not there.
      const [pathname, query] = ctx.originalUrl.split('?', 2) as [string, string | undefined];
      ctx.status = 308;
      return ctx.redirect(`${pathname.replace(/\/+$/, '')}${query === undefined ? '' : `?${query}`}`);
    }
    docs ??= Promise.all([import('./docs.js'), openapiDocument()]).then(([{ renderDocs }, document]) =>
      renderDocs(document),
    );
    const { html, policy } = await docs;
    ctx.set('Content-Security-Policy', policy);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });

  addHealthRoutes(routes, room, [asProblems], {
    isAdmin: (ctx) => {
      if (bearerToken(ctx) === undefined) return false;
      try {
        requireActorCapability(actor(ctx), 'admin');
        return true;
      } catch {
        return false; // a probe with a token that is not an admin's is answered as one without
      }
    },
    openStreams: () => streams.openByKind(),
    maxStreams: streams.maxStreams,
  });
  if (metrics) {
    routes.get('/metrics', asProblems, origin, authenticated, async (ctx) => {
      requireActorCapability(ctx.state.actor as Actor, 'admin');
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.text();
    });
  }

  // The room's page: the same REST and MCP as any client, with the token it was opened with.
  addPageRoutes(routes, options.pageDir ?? defaultPageDir(), [asProblems]);

  app.use(baseHeaders);
  app.use(observe ? observeRequests(observe) : requestId);
  // Before anything else, authentication included: a name that is not the room's is refused on every route.
  app.use((ctx, next) => {
    const refusal = hostRefusal(names, ctx.get('host'));
    if (refusal === null) return next();
    const funnel = ctx.path === '/mcp' ? asJsonRpc : asProblems;
    return funnel(ctx, () => Promise.reject(refusal));
  });
  if (door) app.use(door.misplaced);
  app.use(answerUnroutedAsProblems);
  app.use(mcp.routes());
  app.use(routes.routes());
  app.use(routes.allowedMethods());
  return app;
}
