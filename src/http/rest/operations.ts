import type { RestOperationId, RestOperationTypes } from '../../../generated/rest.js';
import type { Caller } from '../../../generated/types.js';
import {
  acceptHandoff,
  addParticipant,
  DomainError,
  LOCAL_OPERATOR,
  answerInput,
  approveHandoff,
  approveProposal,
  cancelTask,
  completeHandoff,
  createHandoff,
  createSession,
  getHandoff,
  getProposal,
  getTask,
  handoffEvents,
  listHandoffs,
  listParticipants,
  listProposals,
  listSessions,
  proposeChange,
  readArtifact,
  rejectHandoff,
  rejectProposal,
  removeParticipant,
  requestInput,
  revokeSession,
  withdrawProposal,
  workspaceHistory,
  type Actor,
  type Room,
} from '../../engine/index.js';

/** Each REST operation is one engine function; the route table says where its input comes from. */
export const restOperations: {
  [K in RestOperationId]: (
    room: Room,
    caller: Actor,
    input: RestOperationTypes[K]['input'],
  ) => RestOperationTypes[K]['output'];
} = {
  createHandoff: (room, caller, input) => createHandoff(room, asCaller(caller), input),
  listHandoffs,
  getHandoff,
  acceptHandoff: (room, caller, input) => acceptHandoff(room, asCaller(caller), input),
  requestHandoffInput: (room, caller, input) => requestInput(room, asCaller(caller), input),
  completeHandoff: (room, caller, input) => completeHandoff(room, asCaller(caller), input),
  approveHandoff: (room, caller, input) => approveHandoff(room, asCaller(caller), input),
  rejectHandoff: (room, caller, input) => rejectHandoff(room, asCaller(caller), input),
  listHandoffEvents: handoffEvents,
  getTask: (room, caller, input) => getTask(room, asCaller(caller), input),
  answerTaskInput: (room, caller, input) => answerInput(room, asCaller(caller), input),
  cancelTask: (room, caller, input) => cancelTask(room, asCaller(caller), input),
  proposeChange: (room, caller, input) => proposeChange(room, asCaller(caller), input),
  listProposals,
  getProposal,
  approveProposal: (room, caller, input) => approveProposal(room, asCaller(caller), input),
  rejectProposal: (room, caller, input) => rejectProposal(room, asCaller(caller), input),
  withdrawProposal: (room, caller, input) => withdrawProposal(room, asCaller(caller), input),
  readArtifact: (room, caller) => readArtifact(room, caller),
  listHistory: workspaceHistory,
  listParticipants: (room, caller) => listParticipants(room, caller),
  addParticipant,
  removeParticipant,
  listSessions,
  createSession,
  revokeSession,
};

/**
 * Operations that act as a participant need one. The local operator reaches
 * them only by naming a participant (the Commonroom-Participant header).
 */
function asCaller(actor: Actor): Caller {
  if (actor === LOCAL_OPERATOR) {
    throw new DomainError(
      'invalid_input',
      'this operation acts as a participant: name one in the Commonroom-Participant header',
    );
  }
  return actor;
}
