import type Koa from 'koa';

/**
 * The one place an unexpected error ends: logged in full, answered with a
 * plain 500 that carries no details. Client mistakes never get here; each
 * layer answers them itself with the right status.
 */
export function errorFunnel(log: (message: string) => void = (m) => process.stderr.write(`${m}\n`)): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      log(
        `ce: ${ctx.method} ${ctx.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      ctx.status = 500;
      ctx.body =
        ctx.path === '/mcp'
          ? { jsonrpc: '2.0', error: { code: -32603, message: 'internal error' } }
          : { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'internal error' };
    }
  };
}
