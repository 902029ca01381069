// Four eyes (PRODUCT.md §2): with the room's setting, or a room opened with
// fourEyes (ce serve --four-eyes), nobody approves or rejects a proposal they
// wrote, or the result of a handoff they did; someone else does. The author
// may still withdraw. Without it, an approver may decide their own.
import { afterEach, describe, expect, test } from 'vitest';
import {
  acceptHandoff,
  approveHandoff,
  approveProposal,
  completeHandoff,
  createHandoff,
  LOCAL_OPERATOR,
  openRoom,
  proposeChange,
  rejectHandoff,
  rejectProposal,
  syncArtifact,
  updateSettings,
  withdrawProposal,
  type Room,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { ALL_CAPS, caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice', ALL_CAPS);
const bob = caller('bob', ALL_CAPS);
const carol = caller('carol', ALL_CAPS);

let t: TestRoom | undefined;
let other: Room | undefined;
afterEach(() => {
  // A test that reopens the room closes the first one itself; closing twice is harmless.
  other?.close();
  other = undefined;
  t?.close();
  t = undefined;
});

const proposalOf = (room: Room, author = alice) => {
  syncArtifact(room);
  return proposeChange(room, author, { base_revision: 1, content: '# Changed\n', summary: 'A change' }).proposal
    .proposal_id;
};

/** A handoff alice asked of bob, with bob's result ready. */
function resultOf(room: Room): string {
  const { handoff } = createHandoff(room, alice, { summary: 'Check the figures', assignee: 'bob' });
  acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
  completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result: { content: [{ type: 'text', text: 'ok' }] } });
  return handoff.handoff_id;
}

describe('with the room’s setting on', () => {
  test('an author neither approves nor rejects their own proposal, may withdraw it, and another approver decides', () => {
    t = makeRoom();
    updateSettings(t.room, LOCAL_OPERATOR, { four_eyes: true });
    const mine = proposalOf(t.room);
    for (const decide of [approveProposal, rejectProposal]) {
      expectRefused(
        t.room,
        () => decide(t!.room, alice, { proposal_id: mine }),
        'forbidden',
        `the room asks for four eyes: proposal ${mine} is alice's own work, so another approver decides it`,
      );
    }
    expect(approveProposal(t.room, carol, { proposal_id: mine }).proposal).toMatchObject({
      status: 'accepted',
      decided_by: 'carol',
    });
    const again = proposeChange(t.room, alice, { base_revision: 2, content: '# Again\n', summary: 'A change' }).proposal
      .proposal_id;
    expect(withdrawProposal(t.room, alice, { proposal_id: again }).proposal.status).toBe('withdrawn');
  });

  test('the assignee does not decide on their own result; the owner, or anyone else with approve, does', () => {
    t = makeRoom();
    updateSettings(t.room, LOCAL_OPERATOR, { four_eyes: true });
    const first = resultOf(t.room);
    for (const decide of [approveHandoff, rejectHandoff]) {
      expectRefused(
        t.room,
        () => decide(t!.room, bob, { handoff_id: first }),
        'forbidden',
        `the room asks for four eyes: the result of handoff ${first} is bob's own work, so another approver decides it`,
      );
    }
    expect(approveHandoff(t.room, alice, { handoff_id: first }).handoff.status).toBe('approved');
    const second = resultOf(t.room);
    expect(rejectHandoff(t.room, carol, { handoff_id: second }).handoff.status).toBe('rejected');
  });
});

test('a room opened with fourEyes asks for a second person, its setting off', () => {
  t = makeRoom();
  const mine = proposalOf(t.room);
  t.room.close();
  other = openRoom(t.artifact, { command: 'vitest', fourEyes: true });
  expectRefused(other, () => approveProposal(other!, alice, { proposal_id: mine }), 'forbidden', /four eyes/);
  expect(approveProposal(other, carol, { proposal_id: mine }).proposal.status).toBe('accepted');
});

test('without four eyes an approver decides their own proposal and their own result', () => {
  t = makeRoom();
  const mine = proposalOf(t.room);
  expect(approveProposal(t.room, alice, { proposal_id: mine }).proposal.status).toBe('accepted');
  const result = resultOf(t.room);
  expect(approveHandoff(t.room, bob, { handoff_id: result }).handoff.status).toBe('approved');
});
