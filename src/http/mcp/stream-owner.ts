// Whose a stream is, and until when: a stream ends with its session.
import { sessionExpiresAt, type Room } from '../../engine/index.js';
import { isOperatorSession, type McpCaller } from '../../mcp/context.js';
import { RPC, type RequestId } from '../../mcp/protocol.js';

/** The session a stream belongs to: checked at every delivery, not only when the stream opened. */
export interface StreamOwner {
  /** A session's id, or `operator:NAME` for the local operator acting as NAME. */
  sessionId: string;
  participant: string;
  /** When the session expires, on the room's clock; null when it does not. */
  expiresAt: number | null;
}

/** Whose a stream is, and until when: the operator acting as a participant has no session row and no expiry. */
export function streamOwner(room: Room, caller: McpCaller): StreamOwner {
  const operator = isOperatorSession(caller.session_id);
  return {
    sessionId: caller.session_id,
    participant: caller.participant,
    expiresAt: operator ? null : (sessionExpiresAt(room, caller.session_id) ?? null),
  };
}

/** The final answer of a listen whose session ended: no room data, only why the stream closes. */
export const sessionEnded = (requestId: RequestId) => ({
  jsonrpc: '2.0',
  id: requestId,
  error: {
    code: RPC.invalidRequest,
    message: 'the session of this stream ended (revoked, expired, or its participant removed); the stream is closed',
    data: { reason: 'session_ended' },
  },
});
