// proposal_approve: the proposed text written as the next revision, the file
// first on disk and then its record (accepted-write.ts).
import type { InputOf } from '../../../generated/operations.js';
import path from 'node:path';
import type { Caller, ProposalOutput } from '../../../generated/types.js';
import { ChangedMeanwhile, hashBytes, writeArtifactFileAtomically } from '../../store/artifact-file.js';
import { currentRevision, notTextNow, syncArtifact } from '../artifact/artifact.js';
import { decodeArtifact } from '../artifact/text.js';
import { DomainError, StorageError } from '../../errors.js';
import { change, type Room } from '../room.js';
import { requireSecondPerson } from '../settings.js';
import { recordAcceptedWrite } from './accepted-write.js';
import { mergeOnto } from './merge-onto.js';
import { loadProposal, output, requireOpen } from './read-proposals.js';

/** Each step of an accepted write is on disk before the next one (accepted-write.ts), batch or not. */
const DURABLE_NOW = { durableNow: true } as const;

/** Approvals that find the file edited outside while they wrote it, before one gives up. */
export const APPROVE_ATTEMPTS = 5;

/**
 * Writes the proposed text as the next revision. A proposal based on an
 * older revision is merged onto the current one (merge.ts): changes to
 * other lines land, and the revision records the base it was made against;
 * overlapping changes are a conflict naming the lines, and nothing is
 * written. The file and the record of it are written in the order of
 * accepted-write.ts, so a crash at any moment leaves them agreeing once the
 * room starts again; the answer leaves only when both are on disk.
 *
 * An edit made outside the room while the approval writes the file (between
 * the room's read and its rename) is never replaced: the write is given up,
 * the edit recorded as a revision, and the proposal merged onto it again.
 */
export function approveProposal(room: Room, caller: Caller, args: InputOf<'approveProposal'>): ProposalOutput {
  for (let attempt = 1; ; attempt++) {
    try {
      return approveOnce(room, caller, args);
    } catch (error) {
      if (!(error instanceof ChangedMeanwhile)) throw error;
      if (attempt === APPROVE_ATTEMPTS) {
        const name = path.basename(room.artifactPath);
        throw new DomainError(
          'conflict',
          `${name} changed outside the room while the approval was written, ${APPROVE_ATTEMPTS} times in a row; each edit is kept as a revision, nothing was accepted and the proposal stays open: approve it again once the file is still`,
          { reason: 'edited_meanwhile' },
        );
      }
    }
  }
}

function approveOnce(room: Room, caller: Caller, args: InputOf<'approveProposal'>): ProposalOutput {
  syncArtifact(room); // an outside edit is a revision like any other: the proposal merges onto it
  // (1) The pending write, committed before the file is touched.
  const { write, bytes, replaced } = change(
    room,
    ({ now }) => {
      const row = loadProposal(room, args.proposal_id);
      requireOpen(row);
      requireSecondPerson(room, caller, row.author, `proposal ${row.id}`);
      const current = currentRevision(room);
      if (typeof current.content !== 'string') {
        const decoded = decodeArtifact(current.content);
        throw notTextNow(room, 'problem' in decoded ? decoded.problem : 'not text');
      }
      // A base older than the current revision: the proposal is merged onto it, or refused where they overlap.
      const merged =
        row.base_revision === current.number ? null : mergeOnto(room, row, current.number, current.content);
      const bytes = Buffer.from(merged ?? row.content, 'utf8');
      const write = {
        proposal_id: row.id,
        approver: caller.participant,
        note: args.note ?? null,
        base_revision: current.number,
        hash: hashBytes(bytes),
        size: bytes.length,
        at: now,
        content: merged,
        merged_base: merged === null ? null : row.base_revision,
      };
      room.workspace.insertPendingWrite(write);
      return { write, bytes, replaced: current.hash };
    },
    DURABLE_NOW,
  );
  // (2) The file, unless an outside edit came since it was read.
  try {
    writeArtifactFileAtomically(room.artifactPath, bytes, { unlessChangedFrom: replaced });
  } catch (error) {
    change(room, () => room.workspace.deletePendingWrite(), DURABLE_NOW);
    throw error instanceof ChangedMeanwhile ? error : couldNotWrite(room, error);
  }
  // (3) The revision, the decision and the event.
  const decided = change(room, ({ record }) => recordAcceptedWrite(room, write, record), DURABLE_NOW);
  return output(room, decided);
}

/** The file could not be written (a full disk, a read-only directory): nothing was accepted. */
function couldNotWrite(room: Room, error: unknown): unknown {
  const { code, message } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string') return error;
  const name = path.basename(room.artifactPath);
  const unchanged = 'nothing was accepted, the file is as it was and the proposal stays open';
  // The disk's own refusals: no refusal of the request, answered as the room's storage failing.
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new StorageError(
      'disk full',
      `the disk is full: the room could not write ${name}; ${unchanged}`,
      false,
      code,
    );
  }
  if (code === 'EIO') {
    // Only the temp file saw the failure, and it is gone: nothing the room relies on was lost.
    return new StorageError('I/O error', `the disk failed writing ${name} (EIO); ${unchanged}`, false, code);
  }
  const why = message.split(',')[0] ?? message;
  return new DomainError('unavailable', `the room could not write ${name} (${why}); ${unchanged}`, { reason: code });
}
