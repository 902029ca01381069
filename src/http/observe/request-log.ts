// One log line per request, when the room is given a logger: what was asked
// (method, the route's template, MCP's method and tool), of whom (the
// session's participant), how it ended (status) and how long it took, with
// its request id. Never a token, a body or the file's content: only these
// fields are written.
import type { RequestFacts } from './request-facts.js';

/** What the room logs to: pino's logger has this shape, and so may a test's. */
export interface RoomLogger {
  /** Whether info lines are written: when not, no request or change line is even made. */
  readonly logsInfo: boolean;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export function logRequest(logger: RoomLogger, requestId: string, facts: RequestFacts): void {
  // Built field by field (no spread of a temporary object): this runs for every request.
  const fields: Record<string, unknown> = { req_id: requestId, method: facts.method, route: facts.template };
  if (facts.mcpMethod !== null) fields.mcp_method = facts.mcpMethod;
  if (facts.tool !== null) fields.tool = facts.tool;
  fields.status = facts.status;
  fields.duration_ms = Math.round(facts.seconds * 1e6) / 1e3; // to the microsecond
  fields.participant = facts.participant;
  logger.info(fields, 'request');
}
