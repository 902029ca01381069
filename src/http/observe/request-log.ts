// One log line per request, when the room is given a logger: what was asked
// (method, the route's template, MCP's method and tool), of whom (the
// session's participant), how it ended (status) and how long it took, with
// its request id. Never a token, a body or the file's content: only these
// fields are written.
import type Koa from 'koa';
import { LOCAL_OPERATOR, type Actor } from '../../engine/index.js';

/** What the room logs to: pino's logger has this shape, and so may a test's. */
export interface RequestLogger {
  info(fields: Record<string, unknown>, message: string): void;
}

/** Who the request acted as, once authentication has run: a participant's name, the operator, or nobody yet. */
function participantOf(state: Koa.DefaultState): string | null {
  const who = (state.caller ?? state.actor) as Actor | undefined;
  if (who === undefined) return null;
  return who === LOCAL_OPERATOR ? 'the local operator' : who.participant;
}

export const requestLog =
  (logger: RequestLogger): Koa.Middleware =>
  async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const mcpMethod = ctx.path === '/mcp' ? ctx.get('mcp-method') : '';
      logger.info(
        {
          req_id: ctx.state.requestId,
          method: ctx.method,
          route: (ctx as { _matchedRoute?: string })._matchedRoute ?? null,
          ...(mcpMethod ? { mcp_method: mcpMethod } : {}),
          ...(mcpMethod === 'tools/call' && ctx.get('mcp-name') ? { tool: ctx.get('mcp-name') } : {}),
          status: ctx.status,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          participant: participantOf(ctx.state),
        },
        'request',
      );
    }
  };
