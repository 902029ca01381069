import type Koa from 'koa';
import type { Caller } from '../../../generated/types.js';
import type { Room } from '../../engine/index.js';
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
  /** Only the listen handler takes over the HTTP response. */
  koa: Koa.Context;
}

/** Returned by a handler that answered on the HTTP response itself (an SSE stream). */
export const STREAMED = Symbol('streamed');
