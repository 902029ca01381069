// The engine: plain functions over a room. No HTTP, no JSON-RPC; adapters
// (MCP, REST, ce) translate and call these.
export { openRoom, change, taskViewers, type Room, type RoomChange, type OpenRoomOptions } from './room.js';
export { DomainError, isDomainError, isStorageError, StorageError } from './errors.js';
export { LOCAL_OPERATOR, type Actor } from './access.js';
export { checkInput } from './check-input.js';
export { readableViews, ROOM_VIEWS, type RoomView } from './room-views.js';
export { systemClock, ManualClock, type Clock } from './clock.js';
export * as limits from './limits.js';
export { actAs, addParticipant, listParticipants, removeParticipant, OPERATOR_AS_PARTICIPANT } from './participants.js';
export { createHandoff } from './handoffs/create-handoff.js';
export { acceptHandoff } from './handoffs/accept-handoff.js';
export { requestInput } from './handoffs/request-input.js';
export { answerInput } from './handoffs/answer-input.js';
export { completeHandoff } from './handoffs/complete-handoff.js';
export { reportProgress } from './handoffs/report-progress.js';
export { approveHandoff, rejectHandoff } from './handoffs/decide-handoff.js';
export { cancelTask } from './handoffs/cancel-task.js';
export { getTask, getHandoff, handoffEvents, listHandoffs } from './handoffs/read-handoffs.js';
export { sweepExpiredTasks, startExpirySweeper, SWEEP_INTERVAL_MS, type SweepReport } from './handoffs/expire-tasks.js';
export {
  createSession,
  currentSession,
  listSessions,
  revokeSession,
  authenticate,
  authenticateTokenHash,
  hashToken,
  sessionExpiresAt,
  sessionsEndedBy,
} from './sessions.js';
export { readArtifact, syncArtifact, watchArtifact } from './artifact/artifact.js';
export {
  proposeChange,
  approveProposal,
  rejectProposal,
  withdrawProposal,
  getProposal,
  listProposals,
} from './proposals/proposals.js';
export { workspaceHistory } from './history.js';
export { getSettings, roomSettings, updateSettings } from './settings.js';
