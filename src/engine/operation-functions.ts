// The engine function of every operation in the table, by the name the table
// gives it (its `engine` field). Only the runner (operations.ts) calls these:
// they take input already checked and a caller already allowed to act.
export { addParticipant, listParticipants, removeParticipant } from './participants.js';
export { createHandoff } from './handoffs/create-handoff.js';
export { acceptHandoff } from './handoffs/accept-handoff.js';
export { requestHandoffInput } from './handoffs/request-input.js';
export { answerHandoffInput, answerTaskInput } from './handoffs/answer-input.js';
export { completeHandoff } from './handoffs/complete-handoff.js';
export { reportProgress } from './handoffs/report-progress.js';
export { approveHandoff, rejectHandoff } from './handoffs/decide-handoff.js';
export { cancelTask } from './handoffs/cancel-task.js';
export { getTask, getHandoff, listHandoffEvents, listHandoffs } from './handoffs/read-handoffs.js';
export { createSession, getSession, listSessions, revokeSession } from './sessions.js';
export { readArtifact } from './artifact/artifact.js';
export { proposeChange, rejectProposal, withdrawProposal } from './proposals/proposals.js';
export { approveProposal } from './proposals/approve.js';
export { getProposal, listProposals } from './proposals/read-proposals.js';
export { listHistory } from './history.js';
export { getSettings, updateSettings } from './settings.js';
