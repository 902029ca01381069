import type { DomainErrorCode, ToolError } from '../../../generated/types.js';
import type Koa from 'koa';
import { isDomainError, type DomainError } from '../../engine/index.js';
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
};

export function rpcErrorFor(error: DomainError): McpError {
  if (error.code === 'unauthorized') return new McpError(401, RPC.invalidRequest, error.message);
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

/**
 * Answers a client's mistake or a refusal as a JSON-RPC error with its HTTP
 * status. Anything else is not the client's doing and goes on to the app's
 * error funnel (a 500 without details).
 */
export function sendRpcError(ctx: Koa.Context, error: unknown, id: RequestId | null): void {
  const rpc = error instanceof McpError ? error : isDomainError(error) ? rpcErrorFor(error) : null;
  if (!rpc) throw error;
  ctx.status = rpc.status;
  if (rpc.status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  // MCP's error response leaves id out when the request's id is unknown.
  ctx.body = { jsonrpc: '2.0', ...(id === null ? {} : { id }), error: rpc.toJSON() };
}
