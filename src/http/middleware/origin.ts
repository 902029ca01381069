import type Koa from 'koa';

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
      ctx.status = 403;
      ctx.body =
        ctx.path === '/mcp'
          ? { jsonrpc: '2.0', error: { code: -32600, message: `origin ${origin} is not allowed` } }
          : { type: 'about:blank', title: 'Forbidden', status: 403, detail: `origin ${origin} is not allowed` };
      return;
    }
    await next();
  };
}
