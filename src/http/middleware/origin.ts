import type Koa from 'koa';
import { Refusal } from '../refusal.js';

const INVALID_REQUEST = -32600;

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
      throw new Refusal(403, 'forbidden', `origin ${origin} is not allowed`, INVALID_REQUEST);
    }
    await next();
  };
}
