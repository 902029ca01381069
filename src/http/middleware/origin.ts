import type Koa from 'koa';
import { sendProblem } from '../rest/problem.js';

/**
 * Browsers send Origin; a page elsewhere must not drive the room through a
 * user's browser (DNS rebinding). No Origin, or the room's own, is allowed;
 * any other needs --allow-origin.
 */
export function checkOrigin(allowed: readonly string[]): Koa.Middleware {
  const allow = new Set(allowed.map((origin) => origin.replace(/\/$/, '')));
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (origin && origin !== `${ctx.protocol}://${ctx.host}` && !allow.has(origin)) {
      const message = `origin ${origin} is not allowed`;
      if (ctx.path !== '/mcp') return sendProblem(ctx, 403, 'forbidden', message);
      ctx.status = 403;
      ctx.body = { jsonrpc: '2.0', error: { code: -32600, message } };
      return;
    }
    await next();
  };
}
