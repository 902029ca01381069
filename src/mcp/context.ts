import type { Caller } from '../../generated/types.js';
import type { Room } from '../engine/index.js';
import type { LegacySubscriptions } from './legacy-subscriptions.js';
import type { ListenWatch } from './listen-fanout.js';
import type { RequestId } from './protocol.js';

/** A session acting over MCP: the local operator acting as a participant has `operator:NAME`. */
export type McpCaller = Caller & { session_id: string };

/** The session id of the local operator acting as `participant`: it has no session row, so nothing ends it. */
export const operatorSessionId = (participant: string): string => `operator:${participant}`;

/** Whether `sessionId` is the local operator's (operatorSessionId), not a session's. */
export const isOperatorSession = (sessionId: string): boolean => sessionId.startsWith('operator:');

/** What an MCP handler knows of its request. Handlers call the engine; they parse and send nothing. */
export interface McpRequestContext {
  room: Room;
  caller: McpCaller;
  /** The request declared the Tasks extension in its own _meta. */
  tasksDeclared: boolean;
  requestId: RequestId;
  legacySubscriptions: LegacySubscriptions;
}

/**
 * A handler's answer that is a stream (subscriptions/listen): what to send
 * first and what the stream follows. The transport opens the stream; the
 * handler never touches it.
 */
export class StreamReply {
  constructor(
    readonly first: unknown,
    readonly watch: ListenWatch,
  ) {}
}
