import { describe, expect, test } from 'vitest';
import { operations, type OperationId } from '../../generated/operations.js';
import type { Capability, Caller } from '../../generated/types.js';
import {
  acceptHandoff,
  addParticipant,
  answerHandoffInput,
  answerTaskInput,
  approveHandoff,
  approveProposal,
  cancelTask,
  completeHandoff,
  createHandoff,
  createSession,
  DomainError,
  getHandoff,
  getProposal,
  getSession,
  getSettings,
  getTask,
  listHandoffEvents,
  listHandoffs,
  listParticipants,
  listProposals,
  listSessions,
  LOCAL_OPERATOR,
  proposeChange,
  readArtifact,
  rejectHandoff,
  rejectProposal,
  removeParticipant,
  reportProgress,
  requestHandoffInput,
  revokeSession,
  syncArtifact,
  updateSettings,
  withdrawProposal,
  listHistory,
  type Room,
} from '../helpers/engine.js';
import { ALL_CAPS, caller, makeRoom } from '../helpers/room.js';

const full = (name: string): Caller => caller(name, ALL_CAPS);

/** Builds the state an operation needs, then returns it as a call for a caller named `actor`. */
interface Case {
  /** The capability PRODUCT.md §3 says it needs; null: any session may. */
  needs: Capability | null;
  /** The participant who may do it (owner, assignee, author); others are tested elsewhere. */
  actor: string;
  setup(room: Room): (as: Caller) => unknown;
}

function acceptedHandoff(room: Room) {
  const { handoff } = createHandoff(room, full('alice'), { summary: 'x', assignee: 'bob' });
  acceptHandoff(room, full('bob'), { handoff_id: handoff.handoff_id });
  return handoff;
}
function readyHandoff(room: Room) {
  const handoff = acceptedHandoff(room);
  completeHandoff(room, full('bob'), { handoff_id: handoff.handoff_id, result: { content: [] } });
  return handoff;
}
function openProposal(room: Room) {
  syncArtifact(room);
  return proposeChange(room, full('alice'), { base_revision: 1, content: '# New\n', summary: 'A change' }).proposal;
}

// PRODUCT.md §3: what each capability allows. Every operation of the table has a case (the type says so).
const cases: Record<OperationId, Case> = {
  // read
  readArtifact: { needs: 'read', actor: 'carol', setup: (room) => (as) => readArtifact(room, as) },
  listHistory: { needs: 'read', actor: 'carol', setup: (room) => (as) => listHistory(room, as, {}) },
  listHandoffs: { needs: 'read', actor: 'carol', setup: (room) => (as) => listHandoffs(room, as, {}) },
  getHandoff: {
    needs: 'read',
    actor: 'carol',
    setup: (room) => {
      const h = acceptedHandoff(room);
      return (as) => getHandoff(room, as, { handoff_id: h.handoff_id });
    },
  },
  listHandoffEvents: {
    needs: 'read',
    actor: 'carol',
    setup: (room) => {
      const h = acceptedHandoff(room);
      return (as) => listHandoffEvents(room, as, { handoff_id: h.handoff_id });
    },
  },
  getTask: {
    needs: 'read',
    actor: 'alice',
    setup: (room) => {
      const h = acceptedHandoff(room);
      return (as) => getTask(room, as, { task_id: h.task_id });
    },
  },
  getProposal: {
    needs: 'read',
    actor: 'carol',
    setup: (room) => {
      const p = openProposal(room);
      return (as) => getProposal(room, as, { proposal_id: p.proposal_id });
    },
  },
  listProposals: { needs: 'read', actor: 'carol', setup: (room) => (as) => listProposals(room, as, {}) },
  listParticipants: { needs: 'read', actor: 'carol', setup: (room) => (as) => listParticipants(room, as) },
  // write
  proposeChange: {
    needs: 'write',
    actor: 'carol',
    setup: (room) => {
      syncArtifact(room);
      return (as) => proposeChange(room, as, { base_revision: 1, content: 'new', summary: 'A change' });
    },
  },
  withdrawProposal: {
    needs: 'write',
    actor: 'alice',
    setup: (room) => {
      const p = openProposal(room);
      return (as) => withdrawProposal(room, as, { proposal_id: p.proposal_id });
    },
  },
  createHandoff: { needs: 'write', actor: 'carol', setup: (room) => (as) => createHandoff(room, as, { summary: 'x' }) },
  acceptHandoff: {
    needs: 'write',
    actor: 'bob',
    setup: (room) => {
      const { handoff } = createHandoff(room, full('alice'), { summary: 'x' });
      return (as) => acceptHandoff(room, as, { handoff_id: handoff.handoff_id });
    },
  },
  requestHandoffInput: {
    needs: 'write',
    actor: 'bob',
    setup: (room) => {
      const h = acceptedHandoff(room);
      return (as) => requestHandoffInput(room, as, { handoff_id: h.handoff_id, message: 'which?' });
    },
  },
  answerTaskInput: {
    needs: 'write',
    actor: 'alice',
    setup: (room) => {
      const h = acceptedHandoff(room);
      requestHandoffInput(room, full('bob'), { handoff_id: h.handoff_id, key: 'k', message: 'which?' });
      return (as) => answerTaskInput(room, as, { task_id: h.task_id, input_responses: { k: { action: 'decline' } } });
    },
  },
  answerHandoffInput: {
    needs: 'write',
    actor: 'alice',
    setup: (room) => {
      const h = acceptedHandoff(room);
      requestHandoffInput(room, full('bob'), { handoff_id: h.handoff_id, message: 'which?' });
      return (as) => answerHandoffInput(room, as, { handoff_id: h.handoff_id, response: { action: 'decline' } });
    },
  },
  reportProgress: {
    needs: 'write',
    actor: 'bob',
    setup: (room) => {
      const h = acceptedHandoff(room);
      return (as) => reportProgress(room, as, { handoff_id: h.handoff_id, message: 'half way' });
    },
  },
  completeHandoff: {
    needs: 'write',
    actor: 'bob',
    setup: (room) => {
      const h = acceptedHandoff(room);
      return (as) => completeHandoff(room, as, { handoff_id: h.handoff_id, result: { content: [] } });
    },
  },
  cancelTask: {
    needs: 'write',
    actor: 'alice',
    setup: (room) => {
      const h = acceptedHandoff(room);
      return (as) => cancelTask(room, as, { task_id: h.task_id });
    },
  },
  // approve
  approveProposal: {
    needs: 'approve',
    actor: 'carol',
    setup: (room) => {
      const p = openProposal(room);
      return (as) => approveProposal(room, as, { proposal_id: p.proposal_id });
    },
  },
  rejectProposal: {
    needs: 'approve',
    actor: 'carol',
    setup: (room) => {
      const p = openProposal(room);
      return (as) => rejectProposal(room, as, { proposal_id: p.proposal_id });
    },
  },
  approveHandoff: {
    needs: 'approve',
    actor: 'carol',
    setup: (room) => {
      const h = readyHandoff(room);
      return (as) => approveHandoff(room, as, { handoff_id: h.handoff_id });
    },
  },
  rejectHandoff: {
    needs: 'approve',
    actor: 'carol',
    setup: (room) => {
      const h = readyHandoff(room);
      return (as) => rejectHandoff(room, as, { handoff_id: h.handoff_id });
    },
  },
  // admin
  addParticipant: {
    needs: 'admin',
    actor: 'carol',
    setup: (room) => (as) => addParticipant(room, as, { name: 'erin' }),
  },
  removeParticipant: {
    needs: 'admin',
    actor: 'carol',
    setup: (room) => (as) => removeParticipant(room, as, { name: 'dave' }),
  },
  createSession: {
    needs: 'admin',
    actor: 'carol',
    setup: (room) => (as) => createSession(room, as, { participant: 'dave', capabilities: ['read'] }),
  },
  listSessions: { needs: 'admin', actor: 'carol', setup: (room) => (as) => listSessions(room, as, {}) },
  revokeSession: {
    needs: 'admin',
    actor: 'carol',
    setup: (room) => {
      const { session } = createSession(room, LOCAL_OPERATOR, { participant: 'dave', capabilities: ['read'] });
      return (as) => revokeSession(room, as, { session_id: session.session_id });
    },
  },
  getSettings: { needs: 'admin', actor: 'carol', setup: (room) => (as) => getSettings(room, as, {}) },
  updateSettings: {
    needs: 'admin',
    actor: 'carol',
    setup: (room) => (as) => updateSettings(room, as, { allowed_hosts: ['rooms.example.net'] }),
  },
  // any session
  getSession: { needs: null, actor: 'carol', setup: (room) => (as) => getSession(room, as, {}) },
};

test('the table declares for each operation the capability PRODUCT.md gives it', () => {
  const declared = Object.fromEntries(Object.values(operations).map((op) => [op.id, op.capability]));
  const expected = Object.fromEntries(Object.entries(cases).map(([id, c]) => [id, c.needs]));
  expect(declared).toEqual(expected);
});

const CAPABILITIES: Capability[] = ['read', 'write', 'approve', 'admin'];

describe.each(Object.entries(cases))('%s', (_name, { needs, actor, setup }) => {
  test.each(CAPABILITIES)(`with only %s`, (capability) => {
    const t = makeRoom();
    try {
      const run = setup(t.room);
      const attempt = () => run(caller(actor, [capability]));
      if (needs === null || capability === needs) {
        expect(attempt).not.toThrow();
      } else {
        expect(attempt).toThrow(DomainError);
        expect(attempt).toThrow(`this session lacks the ${needs} capability`);
      }
    } finally {
      t.close();
    }
  });
});
