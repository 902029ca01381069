// The engine as tests drive it: everything src/engine/index.ts exports, and
// each operation's engine function by its table name, run through
// runOperation, so that a test's input is checked and its caller allowed
// exactly as a door's would be.
import type { OperationId, OperationTypes } from '../../generated/operations.js';
import { runOperation, type Actor, type Room } from '../../src/engine/index.js';

export * from '../../src/engine/index.js';

/** Operation `id` as a function of (room, actor, input); a missing input is `{}`. */
const operation =
  <K extends OperationId>(id: K) =>
  (room: Room, actor: Actor, input: OperationTypes[K]['input'] = {} as OperationTypes[K]['input']) =>
    runOperation(room, actor, id, input);

export const createHandoff = operation('createHandoff');
export const listHandoffs = operation('listHandoffs');
export const getHandoff = operation('getHandoff');
export const acceptHandoff = operation('acceptHandoff');
export const requestHandoffInput = operation('requestHandoffInput');
export const reportProgress = operation('reportProgress');
export const completeHandoff = operation('completeHandoff');
export const approveHandoff = operation('approveHandoff');
export const rejectHandoff = operation('rejectHandoff');
export const listHandoffEvents = operation('listHandoffEvents');
export const getTask = operation('getTask');
export const answerTaskInput = operation('answerTaskInput');
export const answerHandoffInput = operation('answerHandoffInput');
export const cancelTask = operation('cancelTask');
export const proposeChange = operation('proposeChange');
export const listProposals = operation('listProposals');
export const getProposal = operation('getProposal');
export const approveProposal = operation('approveProposal');
export const rejectProposal = operation('rejectProposal');
export const withdrawProposal = operation('withdrawProposal');
export const readArtifact = operation('readArtifact');
export const listHistory = operation('listHistory');
export const listParticipants = operation('listParticipants');
export const addParticipant = operation('addParticipant');
export const removeParticipant = operation('removeParticipant');
export const getSession = operation('getSession');
export const listSessions = operation('listSessions');
export const createSession = operation('createSession');
export const revokeSession = operation('revokeSession');
export const getSettings = operation('getSettings');
export const updateSettings = operation('updateSettings');
