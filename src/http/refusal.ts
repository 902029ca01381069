import type { ProblemDetails } from '../../generated/types.js';

/** The room's error codes and the HTTP layer's own (schemas/rest/problem-details.json). */
export type ProblemCode = ProblemDetails['code'];

/**
 * A request refused by the HTTP layer itself (origin, body, content type,
 * method), before any engine operation. Each surface renders it its own way:
 * problem+json with `code` for REST, a JSON-RPC error with `rpcCode` on /mcp.
 */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    message: string,
    readonly rpcCode: number,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'Refusal';
  }
}
