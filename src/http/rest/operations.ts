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
  createHandoff: asParticipant(createHandoff),
  listHandoffs,
  getHandoff,
  acceptHandoff: asParticipant(acceptHandoff),
  requestHandoffInput: asParticipant(requestInput),
  completeHandoff: asParticipant(completeHandoff),
  approveHandoff: asParticipant(approveHandoff),
  rejectHandoff: asParticipant(rejectHandoff),
  listHandoffEvents: handoffEvents,
  getTask: asParticipant(getTask),
  answerTaskInput: asParticipant(answerInput),
  cancelTask: asParticipant(cancelTask),
  proposeChange: asParticipant(proposeChange),
  listProposals,
  getProposal,
  approveProposal: asParticipant(approveProposal),
  rejectProposal: asParticipant(rejectProposal),
  withdrawProposal: asParticipant(withdrawProposal),
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
function asParticipant<I, O>(operation: (room: Room, caller: Caller, input: I) => O) {
  return (room: Room, actor: Actor, input: I): O => {
    if (actor === LOCAL_OPERATOR) {
      throw new DomainError(
        'invalid_input',
        'this operation acts as a participant: name one in the Commonroom-Participant header',
      );
    }
    return operation(room, actor, input);
  };
}
