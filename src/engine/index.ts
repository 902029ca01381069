// The engine: plain functions over a room. No HTTP, no JSON-RPC; the doors
// (MCP, REST, ce) translate and call runOperation, which checks an
// operation's input and who may act before its engine function runs.
export { openRoom, change, taskViewers, type Room, type RoomChange, type OpenRoomOptions } from './room.js';
export { runOperation } from './operations.js';
export { DomainError, isDomainError, isStorageError, StorageError } from '../errors.js';
export { LOCAL_OPERATOR, requireActorCapability, type Actor } from './access.js';
export { checkInput } from './check-input.js';
export { readableViews, ROOM_VIEWS, type RoomView } from './room-views.js';
export { systemClock, ManualClock, type Clock } from './clock.js';
export * as limits from './limits.js';
export { actAs, OPERATOR_AS_PARTICIPANT } from './participants.js';
export { sweepExpiredTasks, startExpirySweeper, SWEEP_INTERVAL_MS, type SweepReport } from './handoffs/expire-tasks.js';
export {
  authenticate,
  authenticateTokenHash,
  hashToken,
  sessionExpiresAt,
  sessionHolds,
  sessionsEndedBy,
  Unauthenticated,
} from './sessions.js';
export { sessionsGeneration } from './session-cache.js';
export { syncArtifact } from './artifact/artifact.js';
export { watchArtifact } from './artifact/watch.js';
export { isAllowableOrigin, roomSettings } from './settings.js';
export { roomReadiness, type Readiness } from './readiness.js';
export { roomStatus, type RoomStatus } from './status.js';
