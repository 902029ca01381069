import Router from '@koa/router';
import Koa from 'koa';
import type { Room } from '../engine/index.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { legacyResourceStream } from './mcp/legacy.js';
import { StreamRegistry } from './mcp/streams.js';
import { errorFunnel } from './middleware/error-funnel.js';
import { checkOrigin } from './middleware/origin.js';
import { MAX_BODY_BYTES, readBody } from './middleware/read-body.js';

export interface AppOptions {
  allowedOrigins?: readonly string[];
  maxBodyBytes?: number;
  maxStreamsPerSession?: number;
  /** Changes a live stream may have waiting before it is dropped as lagging. */
  maxStreamQueue?: number;
  keepAliveMs?: number;
}

/** The room's HTTP face: a few small middlewares, then the MCP endpoint. */
export function createApp(room: Room, options: AppOptions = {}): { app: Koa; streams: StreamRegistry } {
  const app = new Koa();
  const streams = new StreamRegistry(options.maxStreamsPerSession, options.maxStreamQueue, options.keepAliveMs);
  const router = new Router();
  router.post('/mcp', mcpEndpoint(room, streams));
  router.get('/mcp', legacyResourceStream(room, streams));

  app.use(errorFunnel());
  app.use(checkOrigin(options.allowedOrigins ?? []));
  app.use(
    readBody(options.maxBodyBytes ?? MAX_BODY_BYTES, (ctx, message) => {
      ctx.status = 413;
      ctx.body = { jsonrpc: '2.0', error: { code: -32600, message } };
    }),
  );
  app.use(router.routes());
  app.use(router.allowedMethods());
  return { app, streams };
}
