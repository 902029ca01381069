// An edit made outside the room while an approval writes the file (after the
// room read it, before its rename) is never replaced: the approval gives its
// write up, records the edit as a revision and merges the proposal onto it;
// an edit that keeps coming refuses the approval, and every edit stays. A
// symbolic link at the artifact's path is written through, and stays a link.
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  approveProposal,
  DomainError,
  getProposal,
  listHistory,
  openRoom,
  proposeChange,
  readArtifact,
  syncArtifact,
  watchArtifact,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { editWhileWriting } from '../helpers/fail-artifact-writes.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';
import { APPROVE_ATTEMPTS } from '../../src/engine/proposals/approve.js';

const alice = caller('alice');
const approver = caller('dave', ['read', 'approve']);
const LINES = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
const ORIGINAL = `${LINES.join('\n')}\n`;
/** The proposal changes line 9; the outside edits append, far from it. */
const PROPOSED = ORIGINAL.replace('line 9\n', 'line 9, proposed\n');

let t: TestRoom;
let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
  t.close();
});

function roomWithProposal(): string {
  t = makeRoom();
  writeFileSync(t.artifact, ORIGINAL);
  syncArtifact(t.room);
  return proposeChange(t.room, alice, { base_revision: 1, content: PROPOSED, summary: 'line 9' }).proposal.proposal_id;
}

const sources = () =>
  listHistory(t.room, alice, {})
    .entries.filter((entry) => entry.kind === 'revision')
    .map((entry) => entry.revision!.source);
const tempFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.tmp'));

describe('an outside edit while an approval writes the file', () => {
  test('once: the edit is recorded as a revision and kept, and the proposal is merged onto it', () => {
    const proposalId = roomWithProposal();
    let edits = 0;
    restore = editWhileWriting(t.dir, () => {
      if (edits++ === 0) appendFileSync(t.artifact, 'saved by an editor meanwhile\n');
    });
    const { proposal, revision } = approveProposal(t.room, approver, { proposal_id: proposalId });
    expect(readFileSync(t.artifact, 'utf8')).toBe(`${PROPOSED}saved by an editor meanwhile\n`);
    expect(proposal).toMatchObject({ status: 'accepted', revision: 3 });
    expect(revision).toMatchObject({ number: 3, source: 'proposal', merged_base: 1 });
    expect(sources()).toEqual(['initial', 'external', 'proposal']);
    expect(tempFiles(t.dir)).toEqual([]);
  });

  test(`every time: refused after ${APPROVE_ATTEMPTS} tries, every edit kept as a revision, the proposal open`, () => {
    const proposalId = roomWithProposal();
    let edits = 0;
    restore = editWhileWriting(t.dir, () => appendFileSync(t.artifact, `edit ${++edits}\n`));
    // Refused, though not with the room unchanged: each edit is recorded.
    let refusal: unknown;
    try {
      approveProposal(t.room, approver, { proposal_id: proposalId });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(
        `changed outside the room while the approval was written, ${APPROVE_ATTEMPTS} times in a row`,
      ),
      details: { reason: 'edited_meanwhile' },
    });
    expect(edits).toBe(APPROVE_ATTEMPTS);
    const edited = `${ORIGINAL}${Array.from({ length: edits }, (_, i) => `edit ${i + 1}\n`).join('')}`;
    expect(readFileSync(t.artifact, 'utf8')).toBe(edited);
    restore();
    restore = null;
    syncArtifact(t.room);
    expect(sources()).toEqual(['initial', ...Array<string>(APPROVE_ATTEMPTS).fill('external')]);
    expect(getProposal(t.room, alice, { proposal_id: proposalId }).proposal.status).toBe('open');
    expect(t.room.store.db.prepare('SELECT * FROM pending_writes').all()).toEqual([]);
    expect(tempFiles(t.dir)).toEqual([]);
  });
});

test('a symbolic link at the artifact’s path is written through, stays a link, and its file is watched', async () => {
  const proposalId = roomWithProposal();
  t.room.close();
  // The file moves into a folder of its own; its old path becomes a link to it.
  const real = path.join(t.dir, 'kept', 'real.md');
  mkdirSync(path.dirname(real));
  renameSync(t.artifact, real);
  symlinkSync(path.join('kept', 'real.md'), t.artifact);
  t.room = openRoom(t.artifact, { clock: t.clock, command: 'vitest' });
  syncArtifact(t.room);
  approveProposal(t.room, approver, { proposal_id: proposalId });
  expect(lstatSync(t.artifact).isSymbolicLink()).toBe(true);
  expect(readFileSync(real, 'utf8')).toBe(PROPOSED);
  expect(tempFiles(t.dir)).toEqual([]);
  expect(tempFiles(path.dirname(real))).toEqual([]);
  // An edit of the file the link leads to, in its own folder, is seen as it happens.
  const stop = watchArtifact(t.room);
  try {
    appendFileSync(real, 'edited where it lives\n');
    await expect.poll(() => sources(), { timeout: 5_000 }).toEqual(['initial', 'proposal', 'external']);
  } finally {
    stop();
  }
});

test('the file taken away: reading and approving are a conflict that says so (not a 404), and nothing changes', () => {
  const proposalId = roomWithProposal();
  rmSync(t.artifact);
  for (const operation of [
    () => approveProposal(t.room, approver, { proposal_id: proposalId }),
    () => readArtifact(t.room, alice),
  ]) {
    const refusal = expectRefused(
      t.room,
      operation,
      'conflict',
      'the artifact room.md is missing on disk; the room reads and changes nothing of it until the file is back',
    );
    expect(refusal.details).toEqual({ reason: 'artifact_missing' });
  }
  writeFileSync(t.artifact, ORIGINAL);
  expect(approveProposal(t.room, approver, { proposal_id: proposalId }).proposal.status).toBe('accepted');
});
