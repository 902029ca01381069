import type { DomainErrorCode } from '../../../generated/types.js';
import type { DomainError } from '../../engine/index.js';
import { McpError, RPC } from './protocol.js';

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

/** A domain refusal of a tool: a tool result with isError, so a model can read it and correct itself. */
export function toolErrorResult(error: DomainError) {
  return {
    content: [{ type: 'text' as const, text: error.message }],
    structuredContent: { error: error.toJSON() },
    isError: true,
  };
}
