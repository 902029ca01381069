// What a room's HTTP face is made with (app.ts): the names it answers to,
// its limits, its prefix, its log and metrics.
import type { Room } from '../engine/index.js';
import type { StreamRegistry } from './mcp/streams.js';
import type { RoomLogger } from './observe/request-log.js';
import type { RoomMetrics } from './observe/room-metrics.js';

export interface AppOptions {
  /** The address the room binds; one of its names (Host). */
  host?: string;
  /** --allow-host: more names the room answers to (`NAME` for any port, or `NAME:PORT`). */
  allowedHosts?: readonly string[];
  /** --allow-origin: browser origins allowed besides the room's own names. */
  allowedOrigins?: readonly string[];
  /** With an unspecified bind address: this machine's addresses, names of the room too. */
  interfaceAddresses?: readonly string[];
  maxBodyBytes?: number;
  maxStreamsPerSession?: number;
  /** Open streams the room holds at once, all sessions together. */
  maxStreams?: number;
  /** Changes a live stream may have waiting before it is dropped as lagging. */
  maxStreamQueue?: number;
  keepAliveMs?: number;
  /** The local operator's key to the running room (see runtime-file.ts); none when null. */
  operatorToken?: string | null;
  /** --base-path: the path prefix every route is under (base-path.ts), normalised; none when ''. */
  basePath?: string;
  /** Where the built page is (dist/page of the package by default). */
  pageDir?: string;
  /** Where unexpected errors are logged in full (the logger, else stderr, by default). */
  log?: (message: string) => void;
  /** The room's log: unexpected errors, and a line per request when it logs info (observe/request-log.ts). */
  logger?: RoomLogger;
  /**
   * Prometheus metrics at GET /metrics, for a session with admin: what makes
   * them (observe/room-metrics.ts), loaded by the caller only when asked for
   * (prom-client takes a while to load); 404 when not given.
   */
  metrics?: (room: Room, streams: StreamRegistry) => RoomMetrics;
}
