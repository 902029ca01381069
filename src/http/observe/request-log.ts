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
  /** A logger whose every line also carries `bindings` (pino writes them as JSON once, here). */
  child(bindings: Record<string, unknown>): RoomLogger;
}

/** Kinds of request kept at once (each a route, a status and a participant); past that the cache starts over. */
const MAX_KINDS = 1024;

/**
 * The request log. Requests of one kind (method, route, status,
 * participant) share a child logger that has those fields written once, so
 * a line costs only its request id and duration: pino serializing every
 * field of every line was most of what the log cost a request.
 */
export function requestLog(logger: RoomLogger): (requestId: string, facts: RequestFacts) => void {
  const kinds = new Map<string, RoomLogger>();
  return (requestId, facts) => {
    // Templates start with "/", routes and methods hold no NUL: only the participant may be anything.
    const kindOf = `${facts.method} ${facts.template} ${facts.route} ${facts.status}`;
    const key = facts.participant === null ? kindOf : `${kindOf}\0${facts.participant}`;
    let kind = kinds.get(key);
    if (kind === undefined) {
      if (kinds.size >= MAX_KINDS) kinds.clear();
      const bindings: Record<string, unknown> = { method: facts.method, route: facts.template };
      if (facts.mcpMethod !== null) bindings.mcp_method = facts.mcpMethod;
      if (facts.tool !== null) bindings.tool = facts.tool;
      bindings.status = facts.status;
      bindings.participant = facts.participant;
      kind = logger.child(bindings);
      kinds.set(key, kind);
    }
    kind.info({ req_id: requestId, duration_ms: Math.round(facts.seconds * 1e6) / 1e3 }, 'request'); // to the µs
  };
}
