// One log line per request, when the room is given a logger: what was asked
// (method, the route's template, MCP's method and tool; the path when no
// route took it), of whom (the session's participant; why its token was
// refused), how it ended (status) and how long it took, with its request
// id. Never a token, a body or the file's content: only these fields are
// written.
import { ByFields } from './by-fields.js';
import type { RequestFacts } from './request-facts.js';

/** What the room logs to: pino's logger has this shape, and so may a test's. */
export interface RoomLogger {
  /** Whether info lines are written: when not, no request or change line is even made. */
  readonly logsInfo: boolean;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  /** An info line whose fields are given as JSON already (`"a":1,"b":"x"`): the request line's, made for every request. */
  infoLine(fieldsJson: string, message: string): void;
}

/** Kinds of request kept at once (each a route, a status and a participant); past that the cache starts over. */
const MAX_KINDS = 1024;

/** A request id as a JSON string: ours and most clients' hold nothing to escape (ids are visible ASCII). */
const idJson = (id: string): string => (id.includes('"') || id.includes('\\') ? JSON.stringify(id) : `"${id}"`);

/**
 * The request log. The fields requests of one kind (method, route, status,
 * participant) share are written as JSON once, so a line costs only its
 * request id and duration: pino serializing every field of every line,
 * beside lines of other shapes, was most of what the log cost a request.
 */
export function requestLog(logger: RoomLogger): (requestId: string, facts: RequestFacts) => void {
  const kinds = new ByFields<string>(MAX_KINDS);
  const kindOf = (facts: RequestFacts) => () => {
    const fields: Record<string, unknown> = { method: facts.method, route: facts.template };
    if (facts.mcpMethod !== null) fields.mcp_method = facts.mcpMethod;
    if (facts.tool !== null) fields.tool = facts.tool;
    fields.status = facts.status;
    fields.participant = facts.participant;
    return JSON.stringify(fields).slice(1, -1);
  };
  return (requestId, facts) => {
    const { route, method, template, status, participant } = facts;
    const kind = kinds.get([route, method, template, status, participant], kindOf(facts));
    const duration = Math.round(facts.seconds * 1e6) / 1e3; // to the µs
    const path = facts.path === undefined ? '' : `,"path":${JSON.stringify(facts.path)}`;
    const refused = facts.refused === undefined ? '' : `,"refused":${JSON.stringify(facts.refused)}`;
    logger.infoLine(`"req_id":${idJson(requestId)},${kind}${path}${refused},"duration_ms":${duration}`, 'request');
  };
}
