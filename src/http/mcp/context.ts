import type { Caller } from '../../../generated/types.js';
import type { Room } from '../../engine/index.js';
import type { ListenWatch } from './listen-fanout.js';
import type { RequestId } from './protocol.js';
import type { StreamRegistry } from './streams.js';

/** What an MCP handler knows of its request. Handlers call the engine; they parse and send nothing. */
export interface McpRequestContext {
  room: Room;
  caller: Caller & { session_id: string };
  /** The request declared the Tasks extension in its own _meta. */
  tasksDeclared: boolean;
  requestId: RequestId;
  streams: StreamRegistry;
}

/**
 * A handler's answer that is a stream (subscriptions/listen): what to send
 * first and what the stream follows. The endpoint opens the SSE response;
 * the handler never touches it.
 */
export class StreamReply {
  constructor(
    readonly first: unknown,
    readonly watch: ListenWatch,
  ) {}
}
