import type Koa from 'koa';
import type { DomainErrorCode } from '../../../generated/types.js';
import type { DomainError } from '../../engine/index.js';

/** The one mapping of the room's error codes to HTTP statuses. */
export const STATUS_FOR: Record<DomainErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  locked: 409,
  too_large: 413,
  limit_reached: 429,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Content Too Large',
  429: 'Too Many Requests',
};

/** An error as application/problem+json (RFC 9457). */
export function sendProblem(
  ctx: Koa.Context,
  status: number,
  code: DomainErrorCode,
  detail: string,
  extra: object = {},
): void {
  ctx.status = status;
  if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify({ type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail, code, ...extra });
}

export function sendDomainError(ctx: Koa.Context, error: DomainError): void {
  const details = (error.details ?? {}) as { errors?: unknown; current_revision?: unknown };
  sendProblem(ctx, STATUS_FOR[error.code], error.code, error.message, {
    ...(details.errors ? { errors: details.errors } : {}),
    ...(details.current_revision !== undefined ? { current_revision: details.current_revision } : {}),
  });
}
