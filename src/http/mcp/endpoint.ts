// POST /mcp: the Streamable HTTP transport (MCP 2026-07-28, stateless) of
// the room's MCP server (src/mcp/server.ts). It only reads the message and
// the headers the server asks for, and sends the outcome: a JSON body, a
// 202, or an SSE stream for a listen. Errors go to the funnel (errors.ts),
// which maps each to its HTTP status once.
import type Koa from 'koa';
import type { Room } from '../../engine/index.js';
import type { McpCaller } from '../../mcp/context.js';
import { jsonRpcMessage, type McpServer } from '../../mcp/server.js';
import { setRpcId } from './errors.js';
import { header } from './headers.js';
import { streamOwner } from './stream-owner.js';
import type { StreamRegistry } from './streams.js';

/** One JSON-RPC message per request, from a caller already authenticated (ctx.state.caller). */
export function mcpEndpoint(
  room: Room,
  server: McpServer,
  streams: StreamRegistry,
  callerOf: (ctx: Koa.Context) => McpCaller,
) {
  return async (ctx: Koa.Context): Promise<void> => {
    const message = jsonRpcMessage(ctx.state.body);
    setRpcId(ctx, message.id ?? null);
    const outcome = await server.handle(
      message,
      (name) => header(ctx.headers, name),
      ctx.state.caller as McpCaller,
      () => callerOf(ctx),
    );
    switch (outcome.kind) {
      case 'notification':
        if (outcome.cancelled !== null) streams.cancel((ctx.state.caller as McpCaller).session_id, outcome.cancelled);
        ctx.status = 202;
        ctx.body = ''; // no body, not Koa's status text
        return;
      case 'result':
        ctx.status = 200;
        ctx.body = { jsonrpc: '2.0', id: outcome.id, result: outcome.result };
        return;
      case 'stream':
        streams.checkRoom(outcome.caller.session_id);
        ctx.respond = false;
        streams.openListen({
          req: ctx.req,
          res: ctx.res,
          owner: streamOwner(room, outcome.caller),
          requestId: outcome.id,
          watch: outcome.watch,
          first: outcome.first,
          kind: outcome.fromPage ? 'page' : 'listen',
        });
    }
  };
}
