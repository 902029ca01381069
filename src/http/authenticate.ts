import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { operatorSessionId, type McpCaller } from '../mcp/context.js';
import { timingSafeEqual } from 'node:crypto';
import {
  actAs,
  authenticate,
  authenticateTokenHash,
  DomainError,
  hashToken,
  LOCAL_OPERATOR,
  sessionsGeneration,
  type Actor,
  type Room,
} from '../engine/index.js';
import { readJsonBodyOf } from './middleware/read-body.js';

/** What authentication reads of a request: its headers (a Koa context has them, and so has node's request). */
export interface WithHeaders {
  headers: IncomingHttpHeaders;
}

export function bearerToken({ headers }: WithHeaders): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
}

/**
 * Who a request is: a session (the usual case), or the local operator
 * holding the running room's operator token, who may act as a participant by
 * naming it in the Commonroom-Participant header (with read, write and
 * approve: actAs). The same rule for both surfaces. The name is
 * percent-encoded as in a URL, so any name travels (ce sends every name so)
 * and actAs alone says whether it is a participant; a participant's own name
 * reads the same encoded or not. A header given, even empty, names one. A
 * session may name only its own participant (refuseAnotherName).
 */
export function requestActor(room: Room, operatorToken: string | null) {
  // The token is hashed once per request, for both questions; hashes compare in constant time.
  const operatorHash = operatorToken === null ? null : Buffer.from(hashToken(operatorToken));
  return (ctx: WithHeaders): Actor => {
    const token = bearerToken(ctx);
    if (!token) return authenticate(room, token);
    const tokenHash = hashToken(token);
    if (operatorHash !== null && timingSafeEqual(Buffer.from(tokenHash), operatorHash)) {
      const named = ctx.headers['commonroom-participant'];
      return named === undefined ? LOCAL_OPERATOR : actAs(room, percentDecoded(String(named)));
    }
    const session = authenticateTokenHash(room, tokenHash);
    const named = ctx.headers['commonroom-participant'];
    if (named !== undefined) refuseAnotherName(percentDecoded(String(named)), session.participant);
    return session;
  };
}

/**
 * A session acts as its own participant only: naming another in
 * Commonroom-Participant (a client that thought it could, as the operator
 * does) is refused, where it was ignored and the request ran as the
 * session's participant without a word. Naming its own is allowed.
 */
function refuseAnotherName(named: string, own: string): void {
  if (named === own) return;
  const shown = JSON.stringify(named.length > 100 ? `${named.slice(0, 100)}…` : named);
  throw new DomainError(
    'forbidden',
    `Commonroom-Participant names ${shown}, but this session is ${own}'s: only the operator token acts as another participant`,
  );
}

/** `z%C3%AB` → `zë`; text that is not percent-encoding stays as it is. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** An MCP caller is always a participant: a session's, or the one the operator names; streams are kept per session. */
export function mcpCaller(actor: (ctx: WithHeaders) => Actor) {
  return (ctx: WithHeaders): McpCaller => {
    const who = actor(ctx);
    if (who === LOCAL_OPERATOR) {
      throw new DomainError(
        'unauthorized',
        'the operator token acts on MCP only as a participant: name one in the Commonroom-Participant header',
      );
    }
    // The operator acting as a participant has no session row; its streams are counted under one name.
    return 'session_id' in who ? (who as McpCaller) : { ...who, session_id: operatorSessionId(who.participant) };
  };
}

/**
 * A request's body, and who sends it: `sender` was asked before the body
 * was read (a 401 comes first), and is asked `again` after it when a session
 * was revoked or a participant removed meanwhile, so that such a write is
 * refused, not run.
 */
export async function bodyAndSender<T>(
  room: Room,
  req: IncomingMessage,
  maxBytes: number,
  sender: T,
  again: () => T,
): Promise<[body: unknown, sender: T]> {
  const generation = sessionsGeneration(room);
  const body = await readJsonBodyOf(req, maxBytes);
  return [body, sessionsGeneration(room) === generation ? sender : again()];
}
