// Accepting a proposal writes the file and the sidecar's record of it in an
// order a crash cannot break (src/engine/proposals/accepted-write.ts). Each
// test stops the protocol where a crash or a failing disk would, opens the
// room again as a restarted process does, and looks at what it settled.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  approveProposal,
  getProposal,
  openRoom,
  proposeChange,
  readArtifact,
  syncArtifact,
  listHistory,
  type Room,
  type RoomChange,
} from '../helpers/engine.js';
import type { DomainErrorCode } from '../../generated/types.js';
import { hashBytes } from '../../src/store/artifact-file.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { failArtifactWrites, type ArtifactFault } from '../helpers/fail-artifact-writes.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const approver = caller('dave', ['read', 'approve']);
const ORIGINAL = '# Test room\n';
const PROPOSED = '# Test room\n\nAccepted text.\n';

let t: TestRoom;
afterEach(() => t.close());

/** A room with revision 1 and one open proposal against it. */
function roomWithProposal(): { room: Room; proposalId: string } {
  t = makeRoom();
  syncArtifact(t.room);
  const { proposal } = proposeChange(t.room, alice, { base_revision: 1, content: PROPOSED, summary: 'more' });
  return { room: t.room, proposalId: proposal.proposal_id };
}

/** The room as a restarted process finds it: closed, then opened for writing and synced (ce serve's start). */
function restart(room: Room): Room {
  room.close();
  const again = openRoom(t.artifact, { clock: t.clock, command: 'vitest' });
  t.room = again;
  syncArtifact(again);
  return again;
}

/** What step (1) commits: the pending write, as approveProposal makes it, without going on. */
function commitPendingWrite(room: Room, proposalId: string, approverName = 'dave', note: string | null = 'ship it') {
  const bytes = Buffer.from(PROPOSED, 'utf8');
  room.store.db.transaction(() =>
    room.workspace.insertPendingWrite({
      proposal_id: proposalId,
      approver: approverName,
      note,
      base_revision: 1,
      hash: hashBytes(bytes),
      size: bytes.length,
      at: t.clock.now(),
      content: null,
      merged_base: null,
    }),
  )();
  return bytes;
}

const tempFiles = () => readdirSync(t.dir).filter((name) => name.endsWith('.tmp'));
const pendingRows = (room: Room) => room.store.db.prepare('SELECT * FROM pending_writes').all();

describe('a crash between the steps', () => {
  test('after (1), before the file: the pending write is dropped and the proposal stays open', () => {
    const { room, proposalId } = roomWithProposal();
    commitPendingWrite(room, proposalId);
    const again = restart(room);
    expect(pendingRows(again)).toEqual([]);
    expect(getProposal(again, alice, { proposal_id: proposalId }).proposal.status).toBe('open');
    expect(readArtifact(again, alice)).toMatchObject({ content: ORIGINAL, revision: { number: 1, source: 'initial' } });
    expect(listHistory(again, alice, {}).entries).toHaveLength(1);
    // The proposal can still be accepted.
    approveProposal(again, approver, { proposal_id: proposalId });
    expect(readFileSync(t.artifact, 'utf8')).toBe(PROPOSED);
  });

  test('after (2), before (3): the bytes in the file are the accepted revision, with its author, approver and event', async () => {
    const { room, proposalId } = roomWithProposal();
    const decidedAt = t.clock.now();
    const bytes = commitPendingWrite(room, proposalId);
    writeFileSync(t.artifact, bytes); // the rename happened; the record did not
    t.clock.advance(60_000); // the restart comes a minute later
    room.close();
    const again = openRoom(t.artifact, { clock: t.clock, command: 'vitest' });
    t.room = again;
    const events: RoomChange[] = [];
    const subscription = again.bus.subscribe();
    syncArtifact(again);
    for (let change = subscription.pending; change > 0; change--) events.push((await subscription.next())!);
    expect(pendingRows(again)).toEqual([]);
    const { proposal, revision } = getProposal(again, alice, { proposal_id: proposalId });
    expect(proposal).toMatchObject({ status: 'accepted', decided_by: 'dave', note: 'ship it', revision: 2 });
    expect(proposal.decided_at).toBe(new Date(decidedAt).toISOString());
    expect(revision).toMatchObject({
      number: 2,
      source: 'proposal',
      author: 'alice',
      approver: 'dave',
      proposal_id: proposalId,
      hash: hashBytes(bytes),
      size: bytes.length,
    });
    expect(events.map((change) => change.event.type)).toEqual(['proposal.accepted']);
    const kinds = listHistory(again, alice, {}).entries.map((e) => [e.kind, e.revision?.source ?? null]);
    expect(kinds).toEqual([
      ['revision', 'initial'],
      ['revision', 'proposal'],
    ]);
  });

  test('after (2), and then an editor changed the file: that is the outside edit, and the proposal stays open', () => {
    const { room, proposalId } = roomWithProposal();
    commitPendingWrite(room, proposalId);
    writeFileSync(t.artifact, '# Rewritten in an editor\n');
    const again = restart(room);
    expect(pendingRows(again)).toEqual([]);
    expect(getProposal(again, alice, { proposal_id: proposalId }).proposal.status).toBe('open');
    expect(readArtifact(again, alice).revision).toMatchObject({ number: 2, source: 'external', author: null });
  });

  test('a temp file left by a write that died before its rename is removed at start-up, never read as content', () => {
    const { room, proposalId } = roomWithProposal();
    commitPendingWrite(room, proposalId);
    const leftover = path.join(t.dir, `.room.md.999999.${Date.now()}.tmp`);
    writeFileSync(leftover, PROPOSED);
    const unrelated = path.join(t.dir, '.other.md.1.2.tmp');
    writeFileSync(unrelated, 'not ours');
    const again = restart(room);
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(unrelated)).toBe(true);
    expect(readArtifact(again, alice)).toMatchObject({ content: ORIGINAL, revision: { number: 1 } });
    expect(getProposal(again, alice, { proposal_id: proposalId }).proposal.status).toBe('open');
  });
});

describe('a write that fails', () => {
  test.each<[ArtifactFault, DomainErrorCode, RegExp, Record<string, string>]>([
    [
      'write',
      'disk_full',
      /^the disk is full: the room could not write room\.md; nothing was accepted/,
      { reason: 'disk full', cause: 'ENOSPC' },
    ],
    [
      'fsync',
      'unavailable',
      /^the disk failed writing room\.md \(EIO\); nothing was accepted/,
      { reason: 'I/O error', cause: 'EIO' },
    ],
    [
      'rename',
      'unavailable',
      /^the room could not write room\.md \(EROFS: read-only file system\); nothing was accepted/,
      { reason: 'EROFS' },
    ],
  ])(
    'at the %s is refused (%s): the proposal stays open, the file and the sidecar are as they were',
    (fault, code, message, details) => {
      const { room, proposalId } = roomWithProposal();
      const restore = failArtifactWrites(t.dir, fault);
      try {
        const error = expectRefused(
          room,
          () => approveProposal(room, approver, { proposal_id: proposalId }),
          code,
          message,
        );
        expect(error.details).toEqual(details);
      } finally {
        restore();
      }
      expect(readFileSync(t.artifact, 'utf8')).toBe(ORIGINAL);
      expect(tempFiles()).toEqual([]);
      expect(pendingRows(room)).toEqual([]);
      // Once the disk has room again, the same approval goes through.
      approveProposal(room, approver, { proposal_id: proposalId });
      expect(readFileSync(t.artifact, 'utf8')).toBe(PROPOSED);
    },
  );
});
