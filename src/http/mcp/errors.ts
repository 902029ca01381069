import type { DomainErrorCode, ToolError } from '../../../generated/types.js';
import type Koa from 'koa';
import { isDomainError, isStorageError, type DomainError } from '../../engine/index.js';
import { Refusal } from '../refusal.js';
import { McpError, RPC, type RequestId } from './protocol.js';

/** A domain refusal of a protocol method (tasks/*, resources/read) as a JSON-RPC error. */
const codes: Record<Exclude<DomainErrorCode, 'unauthorized'>, number> = {
  invalid_input: RPC.invalidParams,
  not_found: RPC.invalidParams,
  forbidden: RPC.forbidden,
  conflict: RPC.conflict,
  too_large: RPC.tooLarge,
  limit_reached: RPC.limitReached,
  locked: RPC.locked,
  unavailable: RPC.unavailable,
  disk_full: RPC.unavailable,
};

export function rpcErrorFor(error: DomainError): McpError {
  if (error.code === 'unauthorized') return new McpError(401, RPC.invalidRequest, error.message);
  // The disk refused the change: an HTTP status as REST gives it, and data.reason saying why.
  if (isStorageError(error)) {
    return new McpError(error.code === 'disk_full' ? 507 : 503, RPC.unavailable, error.message, {
      ...error.details,
      code: error.code,
    });
  }
  return new McpError(
    200,
    codes[error.code],
    error.message,
    error.details ? { ...error.details, code: error.code } : { code: error.code },
  );
}

/**
 * A domain refusal of a tool: a tool result with isError, so a model can read
 * it and correct itself. Its structuredContent is a ToolError, which every
 * tool's outputSchema admits.
 */
export function toolErrorResult(error: DomainError) {
  const structuredContent: ToolError = { error: error.toJSON() };
  return { content: [{ type: 'text' as const, text: error.message }], structuredContent, isError: true };
}

/** The request id an error response names, once the message was parsed (MCP leaves it out when unknown). */
export const setRpcId = (ctx: Koa.Context, id: RequestId | null): void => {
  ctx.state.rpcId = id;
};

/**
 * The MCP surface's one error funnel: a client's mistake or a refusal is a
 * JSON-RPC error with its HTTP status; anything else is logged in full and
 * answered with a plain -32603 that carries no details.
 */
export function answerErrorsAsJsonRpc(log: (message: string) => void): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      let rpc: McpError;
      if (error instanceof McpError) rpc = error;
      else if (isDomainError(error)) rpc = rpcErrorFor(error);
      else if (error instanceof Refusal) {
        rpc = new McpError(error.status, error.rpcCode, error.message);
        ctx.set(error.headers);
      } else {
        log(
          `ce: ${ctx.method} ${ctx.path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        rpc = new McpError(500, RPC.internalError, 'internal error');
      }
      ctx.status = rpc.status;
      if (rpc.status === 401) ctx.set('WWW-Authenticate', 'Bearer');
      const id = (ctx.state.rpcId as RequestId | null | undefined) ?? null;
      ctx.body = { jsonrpc: '2.0', ...(id === null ? {} : { id }), error: rpc.toJSON() };
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
