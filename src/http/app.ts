import Router from '@koa/router';
import Koa from 'koa';
import type { Room } from '../engine/index.js';
import openapi from '../../generated/openapi.json' with { type: 'json' };
import { restActor } from './authenticate.js';
import { renderDocs } from './docs.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { legacyResourceStream } from './mcp/legacy.js';
import { StreamRegistry } from './mcp/streams.js';
import { errorFunnel } from './middleware/error-funnel.js';
import { checkOrigin } from './middleware/origin.js';
import { MAX_BODY_BYTES, readBody } from './middleware/read-body.js';
import { sendProblem } from './rest/problem.js';
import { restRouter } from './rest/router.js';

export interface AppOptions {
  allowedOrigins?: readonly string[];
  maxBodyBytes?: number;
  maxStreamsPerSession?: number;
  /** Changes a live stream may have waiting before it is dropped as lagging. */
  maxStreamQueue?: number;
  keepAliveMs?: number;
  /** The local operator's key to REST (see runtime-file.ts); none when null. */
  operatorToken?: string | null;
}

/** The room's HTTP face: a few small middlewares, then the MCP endpoint. */
export function createApp(room: Room, options: AppOptions = {}): { app: Koa; streams: StreamRegistry } {
  const app = new Koa();
  const streams = new StreamRegistry(options.maxStreamsPerSession, options.maxStreamQueue, options.keepAliveMs);
  const router = new Router();
  router.post('/mcp', mcpEndpoint(room, streams));
  router.get('/mcp', legacyResourceStream(room, streams));
  router.get('/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  const docs = renderDocs(openapi);
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = docs;
  });
  const rest = restRouter(room, restActor(room, options.operatorToken ?? null));

  app.use(errorFunnel());
  app.use(checkOrigin(options.allowedOrigins ?? []));
  app.use(
    readBody(options.maxBodyBytes ?? MAX_BODY_BYTES, (ctx, message) => {
      if (ctx.path !== '/mcp') return sendProblem(ctx, 413, 'too_large', message);
      ctx.status = 413;
      ctx.body = { jsonrpc: '2.0', error: { code: -32600, message } };
    }),
  );
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(rest.routes());
  app.use(rest.allowedMethods());
  return { app, streams };
}
