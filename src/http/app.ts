import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import { roomSettings, type Room } from '../engine/index.js';
import { resourceUris } from '../mcp/resource-uris.js';
import { McpServer } from '../mcp/server.js';
import { mcpCaller, requestActor } from './authenticate.js';
import type { AppOptions } from './app-options.js';
import { basePathDoor } from './base-path-door.js';
import type { RoomParts } from './koa-app.js';
import { isMcpPost, mcpPost } from './mcp/post.js';
import type { StreamLimits } from './mcp/stream-kinds.js';
import { StreamRegistry } from './mcp/streams.js';
import { MAX_BODY_BYTES } from './middleware/read-body.js';
import { RoomNames } from './middleware/room-names.js';
import { openFileLimit } from './open-files.js';
import { requestObserver } from './observe/observe-requests.js';
import type { RestDoor } from './rest/door.js';

/**
 * The room's HTTP face: two surfaces, MCP on /mcp and REST everywhere else
 * (with the room's page at /). POST /mcp, what MCP clients send, and REST's
 * operation routes are answered on node:http alone (mcp/post.ts,
 * rest/door.ts); everything else by a Koa app (koa-app.ts). The REST door and
 * Koa are loaded at the first request that needs them: a room answers its
 * first MCP request without compiling either. Every request must name the
 * room in Host, and is authenticated before its body is read.
 */
export function createApp(
  room: Room,
  options: AppOptions = {},
): {
  /** The room's request handler: POST /mcp and REST's operations on their own, the rest through the Koa app. */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The Koa app, loaded and made once. */
  koa(): Promise<Koa>;
  streams: StreamRegistry;
  names: RoomNames;
} {
  const { logger } = options;
  const log =
    options.log ??
    (logger
      ? (message: string) => logger.error({}, message)
      : (message: string) => process.stderr.write(`${message}\n`));
  const limits: StreamLimits = {
    ...(options.maxStreamsPerSession === undefined ? {} : { maxPerSession: options.maxStreamsPerSession }),
    ...(options.maxStreams === undefined ? {} : { maxStreams: options.maxStreams }),
    openFiles: openFileLimit(),
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
    ...(logger ? { onRefused: (warning: string) => logger.warn({}, warning) } : {}),
  });
  const server = new McpServer(room);
  const actor = requestActor(room, options.operatorToken ?? null);
  const caller = mcpCaller(actor);
  const metrics = options.metrics?.(room, streams);
  const observe = requestObserver(logger, metrics);
  const base = options.basePath ?? '';
  const door = base === '' ? null : basePathDoor(base);
  const parts: RoomParts = { room, options, streams, names, server, actor, caller, log, metrics, observe, door };

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
  const rest = loadedOnce(() =>
    import('./rest/door.js').then(({ restDoor }) =>
      restDoor({
        room,
        names,
        actorOf: actor,
        maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
        basePath: base,
        log,
        observe,
      }),
    ),
  );
  const koa = loadedOnce(() => import('./koa-app.js').then(({ koaApp }) => koaApp(parts))).load;
  const koaAnswer = loadedOnce(() => koa().then((made) => made.callback()));
  const failedToLoad = (res: ServerResponse) => (error: unknown) => {
    log(`ce: loading the room's routes failed: ${String(error)}`);
    res.statusCode = 500;
    res.end();
  };
  const viaKoa = (req: IncomingMessage, res: ServerResponse): void => {
    const answer = koaAnswer.loaded();
    if (answer) return void answer(req, res);
    koaAnswer.load().then((ready) => ready(req, res), failedToLoad(res));
  };
  const viaRest = (req: IncomingMessage, res: ServerResponse, routes: RestDoor): void => {
    const taken = routes.take(req);
    if (taken) routes.answer(req, res, taken);
    else viaKoa(req, res);
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const inside = door === null || door.admit(req); // the prefix taken off; Koa answers a request outside it
    if (!inside) return viaKoa(req, res);
    if (isMcpPost(req)) return mcpPostHandler(req, res);
    const routes = rest.loaded();
    if (routes) return viaRest(req, res, routes);
    rest.load().then((loaded) => viaRest(req, res, loaded), failedToLoad(res));
  };
  return { handler, koa, streams, names };
}

/**
 * `make` run once, at the first `load()`; `loaded()` is what it made once it
 * has, so that a request after the first is answered without waiting a turn.
 */
function loadedOnce<T>(make: () => Promise<T>): { load: () => Promise<T>; loaded: () => T | undefined } {
  let made: T | undefined;
  let making: Promise<T> | undefined;
  return {
    load: () => (making ??= make().then((value) => (made = value))),
    loaded: () => made,
  };
}
