// The door of a room under a path prefix (base-path.ts): where each request
// falls, the prefix taken off as it arrives, and the answer to one outside it.
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { underBasePath } from './base-path.js';
import { problem, sendProblem } from './rest/problem.js';

/**
 * The room's door for a prefix: `admit` takes the prefix off a request as it
 * arrives (false when the request is not under it: the app answers it, with
 * `misplaced`); `misplaced`, the app's middleware for those: the bare prefix
 * is sent on to the prefix with its slash (GET, HEAD), anything else is 404.
 */
export interface BasePathDoor {
  admit(req: IncomingMessage): boolean;
  misplaced: Koa.Middleware;
}

export function basePathDoor(base: string): BasePathDoor {
  const away = new WeakMap<IncomingMessage, string | null>();
  return {
    admit(req) {
      const where = underBasePath(base, req.url ?? '/');
      if ('inside' in where) {
        req.url = where.inside;
        return true;
      }
      away.set(req, 'bare' in where ? where.bare : null);
      return false;
    },
    misplaced: (ctx, next) => {
      if (!away.has(ctx.req)) return next();
      const bare = away.get(ctx.req);
      if (bare && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
        ctx.redirect(bare);
        ctx.status = 308;
        return Promise.resolve();
      }
      sendProblem(ctx, problem(404, 'not_found', `no route ${ctx.method} ${ctx.path}: this room is served under ${base}/`));
      return Promise.resolve();
    },
  };
}
