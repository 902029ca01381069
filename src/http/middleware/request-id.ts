// Every answer carries X-Request-Id: the caller's own, when it sent one a
// log line can safely hold (1 to 128 visible ASCII characters), else a fresh
// one, so a client and the room's logs can name the same request.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';

const USABLE = /^[\x21-\x7e]{1,128}$/;

/** The id of a request that sent `given` in X-Request-Id: that, when a log line can hold it, else a fresh one. */
export const requestIdOf = (given: string | undefined): string =>
  given !== undefined && USABLE.test(given) ? given : randomUUID();

/** Gives the request its id (ctx.state.requestId) and the answer its header; the id. */
export function identify(ctx: Koa.Context): string {
  const id = requestIdOf(ctx.get('X-Request-Id'));
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  return id;
}

export const requestId: Koa.Middleware = (ctx, next) => {
  identify(ctx);
  return next();
};
