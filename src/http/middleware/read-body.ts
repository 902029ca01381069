import type Koa from 'koa';
import getRawBody from 'raw-body';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the request body as UTF-8 text into ctx.state.rawBody, refusing
 * more than the limit with 413 before anything is parsed.
 */
export function readBody(
  limit = MAX_BODY_BYTES,
  tooLarge: (ctx: Koa.Context, message: string) => void,
): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' && ctx.method !== 'PUT' && ctx.method !== 'PATCH') return next();
    const message = `the request body is larger than ${limit} bytes`;
    if (Number(ctx.get('content-length') || 0) > limit) return tooLarge(ctx, message);
    try {
      ctx.state.rawBody = await getRawBody(ctx.req, { limit, encoding: 'utf8' });
    } catch (error) {
      if ((error as { type?: string }).type === 'entity.too.large') return tooLarge(ctx, message);
      throw error;
    }
    await next();
  };
}
