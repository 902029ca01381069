import type { Caller } from '../../../generated/types.js';
import type { Room, RoomChange } from '../../engine/index.js';
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
 * first, which changes to take and the frames each becomes. The endpoint
 * opens the SSE response; the handler never touches it.
 */
export class StreamReply {
  constructor(
    readonly first: unknown,
    readonly filter: (change: RoomChange) => boolean,
    readonly render: (change: RoomChange) => unknown[],
  ) {}
}
