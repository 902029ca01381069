import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { requireActorCapability, roomSettings, type Actor, type Room } from '../engine/index.js';
import { bearerToken, mcpCaller, requestActor } from './authenticate.js';
import { isMcpPost, mcpPost } from './mcp/post.js';
import { answerErrorsAsJsonRpc, mcpMethodNotAllowed } from './mcp/errors.js';
import { legacyResourceStream } from './mcp/legacy.js';
import { resourceUris } from '../mcp/resource-uris.js';
import { McpServer } from '../mcp/server.js';
import type { StreamLimits } from './mcp/stream-kinds.js';
import { StreamRegistry } from './mcp/streams.js';
import { MAX_BODY_BYTES, readJsonBody } from './middleware/read-body.js';
import { requestId } from './middleware/request-id.js';
import { observeRequests, requestObserver } from './observe/observe-requests.js';
import type { RoomLogger } from './observe/request-log.js';
import type { RoomMetrics } from './observe/room-metrics.js';
import { checkOrigin, hostRefusal, RoomNames } from './middleware/room-names.js';
import { answerErrorsAsProblems, answerUnroutedAsProblems } from './rest/problem.js';
import { restRouter } from './rest/router.js';
import { addHealthRoutes } from './health.js';
import { addPageRoutes, defaultPageDir } from './page.js';
import { basePathDoor } from './base-path.js';

export interface AppOptions {
  /** The address the room binds; one of its names (Host). */
  host?: string;
  /** --allow-host: more names the room answers to (`NAME` for any port, or `NAME:PORT`). */
  allowedHosts?: readonly string[];
  /** --allow-origin: browser origins allowed besides the room's own names. */
  allowedOrigins?: readonly string[];
  /** With an unspecified bind address: this machine's addresses, names of the room too. */
  interfaceAddresses?: readonly string[];
  maxBodyBytes?: number;
  maxStreamsPerSession?: number;
  /** Open streams the room holds at once, all sessions together. */
  maxStreams?: number;
  /** Changes a live stream may have waiting before it is dropped as lagging. */
  maxStreamQueue?: number;
  keepAliveMs?: number;
  /** The local operator's key to the running room (see runtime-file.ts); none when null. */
  operatorToken?: string | null;
  /** --base-path: the path prefix every route is under (base-path.ts), normalised; none when ''. */
  basePath?: string;
  /** Where the built page is (dist/page of the package by default). */
  pageDir?: string;
  /** Where unexpected errors are logged in full (the logger, else stderr, by default). */
  log?: (message: string) => void;
  /** The room's log: unexpected errors, and a line per request when it logs info (observe/request-log.ts). */
  logger?: RoomLogger;
  /**
   * Prometheus metrics at GET /metrics, for a session with admin: the class
   * of observe/room-metrics.ts, loaded by the caller only when asked for
   * (prom-client takes a while to load); 404 when not given.
   */
  metrics?: typeof RoomMetrics;
}

/**
 * Headers every answer carries: never sniffed as another type, and never
 * stored by a cache (answers hold tokens and room content; the page's own
 * files say otherwise for themselves).
 */
const baseHeaders: Koa.Middleware = async (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  await next();
};

/**
 * The room's HTTP face: two surfaces, MCP on /mcp and REST everywhere else
 * (with the room's page at /), each a few small middlewares composed once,
 * ending in its own error funnel (JSON-RPC errors, or problem+json). Every
 * request must name the room in Host, and is authenticated before its body
 * is read.
 */
export function createApp(
  room: Room,
  options: AppOptions = {},
): {
  app: Koa;
  /** The room's request handler: POST /mcp on its own, the rest through the Koa app. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  streams: StreamRegistry;
  names: RoomNames;
} {
  const app = new Koa();
  const { logger } = options;
  const log =
    options.log ??
    (logger
      ? (message: string) => logger.error({}, message)
      : (message: string) => process.stderr.write(`${message}\n`));
  const limits: StreamLimits = {
    ...(options.maxStreamsPerSession === undefined ? {} : { maxPerSession: options.maxStreamsPerSession }),
    ...(options.maxStreams === undefined ? {} : { maxStreams: options.maxStreams }),
    ...(options.maxStreamQueue === undefined ? {} : { maxQueue: options.maxStreamQueue }),
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
  };
  const streams = new StreamRegistry(room.bus, resourceUris(room), () => room.clock.now(), limits);
  const names = new RoomNames({
    bindHost: options.host ?? '127.0.0.1',
    allowHosts: options.allowedHosts ?? [],
    allowOrigins: options.allowedOrigins ?? [],
    interfaceAddresses: options.interfaceAddresses ?? [],
    settings: () => roomSettings(room),
  });
  const origin = checkOrigin(names);
  const body = readJsonBody(options.maxBodyBytes ?? MAX_BODY_BYTES);

  // Acknowledged means on disk: an answer leaves once the commits of what it did and saw are done, and is
  // the commit's error when one failed (group-commit.ts).
  const durable: Koa.Middleware = (_ctx, next) => room.commits.durably(next);

  const operatorToken = options.operatorToken ?? null;
  const mcp = new Router();
  const asJsonRpc = answerErrorsAsJsonRpc(log);
  const caller = mcpCaller(room, operatorToken);
  const mcpAuthenticated: Koa.Middleware = async (ctx, next) => {
    ctx.state.caller = caller(ctx);
    await next();
  };
  const server = new McpServer(room);
  mcp.get('/mcp', asJsonRpc, origin, mcpAuthenticated, legacyResourceStream(room, streams, server.legacySubscriptions));
  mcp.all('/mcp', asJsonRpc, mcpMethodNotAllowed);

  const asProblems = answerErrorsAsProblems(log);
  const actor = requestActor(room, operatorToken);
  const restAuthenticated: Koa.Middleware = async (ctx, next) => {
    ctx.state.actor = actor(ctx);
    await next();
  };
  const base = options.basePath ?? '';
  const rest = restRouter(room, [asProblems, origin, restAuthenticated, body, durable], base);
  // Read at its first request, like the docs rendered from it: neither is in the room's start.
  let openapi: Promise<Record<string, unknown>> | undefined;
  const openapiDocument = () =>
    (openapi ??= import('../../generated/openapi.json', { with: { type: 'json' } }).then(({ default: document }) =>
      base === '' ? document : { ...document, servers: [{ ...document.servers[0], url: base }] },
    ));
  rest.get('/openapi.json', asProblems, origin, async (ctx) => {
    ctx.body = await openapiDocument();
  });
  let docs: Promise<{ html: string; policy: string }> | undefined;
  rest.get('/docs', asProblems, origin, async (ctx) => {
    docs ??= Promise.all([import('./docs.js'), openapiDocument()]).then(([{ renderDocs }, document]) =>
      renderDocs(document),
    );
    const { html, policy } = await docs;
    ctx.set('Content-Security-Policy', policy);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  });

  addHealthRoutes(rest, room, [asProblems], {
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
  });
  const metrics = options.metrics ? new options.metrics(room, streams) : undefined;
  if (metrics) {
    rest.get('/metrics', asProblems, origin, restAuthenticated, async (ctx) => {
      requireActorCapability(ctx.state.actor as Actor, 'admin');
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.text();
    });
  }

  // The room's page: the same REST and MCP as any client, with the token it was opened with.
  addPageRoutes(rest, options.pageDir ?? defaultPageDir(), [asProblems]);

  app.use(baseHeaders);
  const observe = requestObserver(logger, metrics);
  app.use(observe ? observeRequests(observe) : requestId);
  // Before anything else, authentication included: a name that is not the room's is refused on every route.
  app.use((ctx, next) => {
    const refusal = hostRefusal(names, ctx.get('host'));
    if (refusal === null) return next();
    const funnel = ctx.path === '/mcp' ? asJsonRpc : asProblems;
    return funnel(ctx, () => Promise.reject(refusal));
  });
  const door = base === '' ? null : basePathDoor(base);
  if (door) app.use(door.misplaced);
  app.use(answerUnroutedAsProblems);
  app.use(mcp.routes());
  app.use(rest.routes());
  app.use(rest.allowedMethods());
  // POST /mcp never reaches Koa: node:http hands it to mcp/post.ts, everything else to the app.
  const mcpPostHandler = mcpPost({
    room,
    server,
    streams,
    names,
    callerOf: caller,
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
    log,
    observe,
  });
  const koa = app.callback();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const inside = door === null || door.admit(req); // the prefix taken off; Koa answers a request outside it
    if (inside && isMcpPost(req)) mcpPostHandler(req, res);
    else void koa(req, res);
  };
  return { app, handler, streams, names };
}
