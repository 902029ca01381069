import type Koa from 'koa';
import { isDomainError } from '../../errors.js';
import { rpcErrorFor } from '../../mcp/errors.js';
import { RPC, RpcError } from '../../mcp/protocol.js';
import { Refusal, refusalOf } from '../refusal.js';

/**
 * The HTTP status of a JSON-RPC error, from its code (Streamable HTTP). An
 * answer is 200, save a disk that refused the change (503, 507 when full,
 * as REST says it); a refused request is 400, an unknown method 404, and
 * too many streams 429.
 */
export function httpStatusOf(error: RpcError): number {
  if (error.code === RPC.unavailable) {
    return (error.data as { code?: unknown } | undefined)?.code === 'disk_full' ? 507 : 503;
  }
  if (!error.refusesRequest) return 200;
  if (error.code === RPC.methodNotFound) return 404;
  if (error.code === RPC.limitReached) return 429;
  return 400;
}

/** An error as the MCP surface answers it: its HTTP status, headers of its own, and the JSON-RPC error. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  error: ReturnType<RpcError['toJSON']>;
}

/**
 * The MCP surface's one mapping of errors: a client's mistake or a refusal
 * is a JSON-RPC error with its HTTP status, and so is a process out of files
 * (a 503, said in a line of the log); anything else is logged in full
 * (`what`: the request) and answered with a plain -32603 that carries no
 * details.
 */
export function errorAnswer(error: unknown, log: (message: string) => void, what: string): ErrorAnswer {
  let rpc: RpcError;
  let status: number;
  let headers: Record<string, string> = {};
  const refused = refusalOf(error, log, what);
  if (error instanceof RpcError) [rpc, status] = [error, httpStatusOf(error)];
  else if (isDomainError(error)) {
    rpc = rpcErrorFor(error);
    // Authentication is this transport's: a request with no valid token is 401.
    status = error.code === 'unauthorized' ? 401 : httpStatusOf(rpc);
  } else if (refused) {
    [rpc, status, headers] = [new RpcError(refused.rpcCode, refused.message), refused.status, refused.headers];
  } else {
    log(`ce: ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    [rpc, status] = [new RpcError(RPC.internalError, 'internal error'), 500];
  }
  if (status === 401) headers = { ...headers, 'WWW-Authenticate': 'Bearer' };
  return { status, headers, error: rpc.toJSON() };
}

/** errorAnswer as the error funnel of Koa's /mcp routes (GET and the methods refused): no message, so no id. */
export function answerErrorsAsJsonRpc(log: (message: string) => void): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const answer = errorAnswer(error, log, `${ctx.method} ${ctx.path}`);
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = { jsonrpc: '2.0', error: answer.error };
    }
  };
}

/** /mcp answers POST and GET only. */
export const mcpMethodNotAllowed: Koa.Middleware = () => {
  throw new Refusal(
    405,
    'method_not_allowed',
    'method not allowed: /mcp takes POST (and GET for the legacy stream)',
    RPC.invalidRequest,
    {
      Allow: 'GET, POST',
    },
  );
};
