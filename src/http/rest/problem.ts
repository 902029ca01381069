import type Koa from 'koa';
import { HTTP_STATUS } from '../../../generated/operations.js';
import { isDomainError, type DomainError } from '../../engine/index.js';
import { refusalOf, type ProblemCode } from '../refusal.js';

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

/** An answer as application/problem+json (RFC 9457): its status, headers of its own, and its text. */
export interface Problem {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export const PROBLEM_TYPE = 'application/problem+json';

/** The problem answer of `status`, with the room's `code` and the `detail` the client reads. */
export function problem(
  status: number,
  code: ProblemCode,
  detail: string,
  extra: object = {},
  headers: Record<string, string> = {},
): Problem {
  const body = JSON.stringify({
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...extra,
  });
  return { status, headers: status === 401 ? { ...headers, 'WWW-Authenticate': 'Bearer' } : headers, body };
}

/** A refusal of the room, with everything it said: `details` whole, and its best-known members on their own. */
function domainProblem(error: DomainError): Problem {
  const details = (error.details ?? {}) as { errors?: unknown; current_revision?: unknown; reason?: unknown };
  // The one mapping of the room's error codes to HTTP statuses: x-http-status of DomainErrorCode.
  return problem(
    HTTP_STATUS[error.code],
    error.code,
    error.message,
    {
      ...(details.errors ? { errors: details.errors } : {}),
      ...(details.current_revision !== undefined ? { current_revision: details.current_revision } : {}),
      ...(error.details ? { details: error.details } : {}),
    },
    // A busy sidecar is a moment's matter.
    details.reason === 'busy' ? { 'Retry-After': '1' } : {},
  );
}

/**
 * The REST surface's one mapping of errors: refusals and domain errors
 * become problem+json with their status, and so does a process out of files
 * (a 503, said in a line of the log); anything else is logged in full
 * (`what`: the request) and answered with a plain 500 that carries no
 * details.
 */
export function problemOf(error: unknown, log: (message: string) => void, what: string): Problem {
  if (isDomainError(error)) return domainProblem(error);
  const refused = refusalOf(error, log, what);
  if (refused) return problem(refused.status, refused.code, refused.message, {}, { ...refused.headers });
  log(`ce: ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return problem(500, 'internal_error', 'internal error');
}

/** A problem answered through Koa. */
export function sendProblem(ctx: Koa.Context, answer: Problem): void {
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.type = PROBLEM_TYPE;
  ctx.body = answer.body;
}

/** problemOf as the error funnel of Koa's routes. */
export function answerErrorsAsProblems(log: (message: string) => void): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      sendProblem(ctx, problemOf(error, log, `${ctx.method} ${ctx.path}`));
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
    sendProblem(ctx, methodNotAllowed(ctx.method, ctx.path, ctx.response.get('Allow')));
  } else if (ctx.status === 404 || ctx.status === 501) {
    ctx.remove('Allow');
    sendProblem(ctx, problem(404, 'not_found', `no route ${ctx.method} ${ctx.path}`));
  }
};

/** `method` on a route that takes only those `allow` names (the Allow header's text). */
export const methodNotAllowed = (method: string, path: string, allow: string): Problem =>
  problem(405, 'method_not_allowed', `${method} is not allowed on ${path} (allowed: ${allow})`, {}, { Allow: allow });
