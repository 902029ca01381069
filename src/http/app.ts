import Router from '@koa/router';
import Koa from 'koa';
import type { Room } from '../engine/index.js';
import openapi from '../../generated/openapi.json' with { type: 'json' };
import { mcpCaller, requestActor } from './authenticate.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { answerErrorsAsJsonRpc, mcpMethodNotAllowed } from './mcp/errors.js';
import { legacyResourceStream } from './mcp/legacy.js';
import { resourceUris } from './mcp/resources.js';
import { StreamRegistry } from './mcp/streams.js';
import { checkOrigin } from './middleware/origin.js';
import { MAX_BODY_BYTES, readJsonBody } from './middleware/read-body.js';
import { answerErrorsAsProblems, answerUnroutedAsProblems } from './rest/problem.js';
import { restRouter } from './rest/router.js';
import { addPageRoutes, defaultPageDir } from './page.js';

export interface AppOptions {
  allowedOrigins?: readonly string[];
  maxBodyBytes?: number;
  maxStreamsPerSession?: number;
  /** Changes a live stream may have waiting before it is dropped as lagging. */
  maxStreamQueue?: number;
  keepAliveMs?: number;
  /** The local operator's key to the running room (see runtime-file.ts); none when null. */
  operatorToken?: string | null;
  /** Where the built page is (dist/page of the package by default). */
  pageDir?: string;
  /** Where unexpected errors are logged in full (stderr by default). */
  log?: (message: string) => void;
}

/**
 * The room's HTTP face: two surfaces, MCP on /mcp and REST everywhere else
 * (with the room's page at /),
 * each a few small middlewares composed once, ending in its own error funnel
 * (JSON-RPC errors, or problem+json).
 */
export function createApp(room: Room, options: AppOptions = {}): { app: Koa; streams: StreamRegistry } {
  const app = new Koa();
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const streams = new StreamRegistry(
    room.bus,
    resourceUris(room),
    options.maxStreamsPerSession,
    options.maxStreamQueue,
    options.keepAliveMs,
  );
  const origin = checkOrigin(options.allowedOrigins ?? []);
  const body = readJsonBody(options.maxBodyBytes ?? MAX_BODY_BYTES);

  // Acknowledged means on disk: an answer leaves once the commit holding what it saw is done (group-commit.ts).
  const durable: Koa.Middleware = async (_ctx, next) => {
    try {
      await next();
    } finally {
      await room.commits.settled();
    }
  };

  const operatorToken = options.operatorToken ?? null;
  const mcp = new Router();
  const asJsonRpc = answerErrorsAsJsonRpc(log);
  const caller = mcpCaller(room, operatorToken);
  mcp.post('/mcp', asJsonRpc, origin, body, durable, mcpEndpoint(room, streams, caller));
  mcp.get('/mcp', asJsonRpc, origin, legacyResourceStream(room, streams, caller));
  mcp.all('/mcp', asJsonRpc, mcpMethodNotAllowed);

  const asProblems = answerErrorsAsProblems(log);
  const rest = restRouter(room, requestActor(room, operatorToken), [asProblems, origin, body, durable]);
  rest.get('/openapi.json', asProblems, origin, (ctx) => {
    ctx.body = openapi;
  });
  // Rendered at its first request: markdown-it and the rendering stay out of the room's start.
  let docs: Promise<string> | undefined;
  rest.get('/docs', asProblems, origin, async (ctx) => {
    docs ??= import('./docs.js').then(({ renderDocs }) => renderDocs(openapi));
    const page = await docs;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });

  // The room's page: the same REST and MCP as any client, with the token it was opened with.
  addPageRoutes(rest, options.pageDir ?? defaultPageDir(), [asProblems]);

  app.use(answerUnroutedAsProblems);
  app.use(mcp.routes());
  app.use(rest.routes());
  app.use(rest.allowedMethods());
  return { app, streams };
}
