import type Koa from 'koa';
import { HTTP_STATUS } from '../../../generated/operations.js';
import { isDomainError, type DomainError } from '../../engine/index.js';
import { Refusal, type ProblemCode } from '../refusal.js';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};

/** An error as application/problem+json (RFC 9457). */
export function sendProblem(
  ctx: Koa.Context,
  status: number,
  code: ProblemCode,
  detail: string,
  extra: object = {},
): void {
  ctx.status = status;
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify({ type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail, code, ...extra });
}

/** A refusal of the room, with everything it said: `details` whole, and its best-known members on their own. */
export function sendDomainError(ctx: Koa.Context, error: DomainError): void {
  const details = (error.details ?? {}) as { errors?: unknown; current_revision?: unknown; reason?: unknown };
  // A busy sidecar is a moment's matter.
  if (details.reason === 'busy') ctx.set('Retry-After', '1');
  // The one mapping of the room's error codes to HTTP statuses: x-http-status of DomainErrorCode.
  sendProblem(ctx, HTTP_STATUS[error.code], error.code, error.message, {
    ...(details.errors ? { errors: details.errors } : {}),
    ...(details.current_revision !== undefined ? { current_revision: details.current_revision } : {}),
    ...(error.details ? { details: error.details } : {}),
  });
}

/**
 * The REST surface's one error funnel: refusals and domain errors become
 * problem+json with their status; anything else is logged in full and
 * answered with a plain 500 that carries no details.
 */
export function answerErrorsAsProblems(log: (message: string) => void): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof Refusal) {
        ctx.set(error.headers);
        return sendProblem(ctx, error.status, error.code, error.message);
      }
      if (isDomainError(error)) return sendDomainError(ctx, error);
      log(
        `ce: ${ctx.method} ${ctx.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      sendProblem(ctx, 500, 'internal_error', 'internal error');
    }
  };
}

/**
 * After every route: a path no route has is 404, a method its route does not
 * take is 405 (with Allow, set by the router), both as problem+json.
 */
export const answerUnroutedAsProblems: Koa.Middleware = async (ctx, next) => {
  await next();
  if (ctx.body != null || ctx.respond === false) return;
  // The router answers a method it does not know at all (TRACE) with 501 whatever the path: with no
  // method allowed there, the path is no route.
  if ((ctx.status === 405 || ctx.status === 501) && ctx.response.get('Allow')) {
    sendProblem(
      ctx,
      405,
      'method_not_allowed',
      `${ctx.method} is not allowed on ${ctx.path} (allowed: ${ctx.response.get('Allow')})`,
    );
  } else if (ctx.status === 404 || ctx.status === 501) {
    ctx.remove('Allow');
    sendProblem(ctx, 404, 'not_found', `no route ${ctx.method} ${ctx.path}`);
  }
};
