// The plain answer of each operation command. An operation without a
// renderer of its own answers with its output as indented JSON.
import type { OperationId, OperationTypes } from '../../../generated/operations.js';
import type { RenderContext } from './context.js';
import * as h from './handoffs.js';
import * as r from './room.js';

type Renderers = {
  [K in OperationId]?: (output: OperationTypes[K]['output'], context: RenderContext) => string;
};

export const renderers: Renderers = {
  createHandoff: h.handoffCreated,
  listHandoffs: h.handoffList,
  getHandoff: h.handoffTask,
  acceptHandoff: h.handoffAccepted,
  requestHandoffInput: h.inputRequested,
  answerHandoffInput: h.handoffAnswered,
  reportProgress: h.progressReported,
  completeHandoff: h.handoffCompleted,
  approveHandoff: h.handoffDecided,
  rejectHandoff: h.handoffDecided,
  listHandoffEvents: h.listHandoffEvents,
  getTask: h.taskFields,
  answerTaskInput: h.taskAnswered,
  cancelTask: h.taskCancelled,
  proposeChange: r.proposed,
  listProposals: r.proposalList,
  getProposal: r.proposalFields,
  approveProposal: r.proposalAccepted,
  rejectProposal: r.proposalRejected,
  withdrawProposal: r.proposalWithdrawn,
  readArtifact: r.artifactText,
  listHistory: r.history,
  listParticipants: r.participantList,
  addParticipant: r.participantAdded,
  removeParticipant: r.participantRemoved,
  getSession: r.whoAmI,
  listSessions: r.sessionList,
  createSession: r.sessionCreated,
  revokeSession: r.sessionRevoked,
  getSettings: r.settingsFields,
  updateSettings: r.settingsFields,
};

export type { RenderContext };

/** The plain answer of `id`'s output. */
export function renderPlain(id: OperationId, output: unknown, context: RenderContext): string {
  const render = renderers[id] as ((output: unknown, context: RenderContext) => string) | undefined;
  return render ? render(output, context) : JSON.stringify(output, null, 2);
}
