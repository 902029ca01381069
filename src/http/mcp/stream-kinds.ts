// What the stream registry (streams.ts) holds and how much of it: the kinds
// of stream, one open stream, and the limits a room is served with.
import type { CloseReason } from '../../bus/bus.js';
import type { RequestId } from '../../mcp/protocol.js';
import type { SseStream } from './sse.js';
import type { StreamOwner } from './stream-owner.js';

export const DEFAULT_MAX_STREAMS_PER_SESSION = 1024;
export const DEFAULT_MAX_STREAMS = 10_000;
/** How often streams are checked for a session that expired while nothing was delivered. */
export const EXPIRY_CHECK_MS = 1000;
/** listen: a subscriptions/listen response; page: one the room's page opened; get_mcp: a legacy GET /mcp stream. */
export type StreamKind = 'listen' | 'page' | 'get_mcp';

export interface OpenStream {
  kind: StreamKind;
  owner: StreamOwner;
  /** The listen request's id; null for a GET /mcp stream. */
  requestId: RequestId | null;
  sse: SseStream;
  close(reason?: CloseReason): void;
}

export interface StreamLimits {
  maxPerSession?: number;
  /** Streams the whole room may hold at once. */
  maxStreams?: number;
  /** The process's limit on open files (open-files.ts), which may hold maxStreams lower; null when not known. */
  openFiles?: number | null;
  /** Changes a stream may have waiting before it counts as lagging. */
  maxQueue?: number;
  keepAliveMs?: number;
}
