import type { InputOf } from '../../../generated/operations.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import type { Caller, ProposalOutput } from '../../../generated/types.js';
import { hashBytes, writeArtifactFileAtomically } from '../../store/artifact-file.js';
import type { ProposalRow, RevisionRow } from '../../store/rows.js';
import { currentRevision, notTextNow, syncArtifact } from '../artifact/artifact.js';
import { decodeArtifact, textProblem } from '../artifact/text.js';
import { DomainError, invalidField, StorageError } from '../../errors.js';
import { appendHistory } from '../history.js';
import { change, type Room } from '../room.js';
import { recordAcceptedWrite } from './accepted-write.js';
import { mergeOnto } from './merge-onto.js';
import { mergeableJson, mergeableOnto } from './mergeable.js';
import { loadProposal, output } from './read-proposals.js';
import { requireSecondPerson } from '../settings.js';

/** Each step of an accepted write is on disk before the next one (accepted-write.ts), batch or not. */
const DURABLE_NOW = { durableNow: true } as const;

const newProposalId = (): string => `pr_${randomBytes(12).toString('base64url')}`;

function applyDiff(base: RevisionRow & { content: string }, diff: string): string {
  let patched: string | false;
  try {
    const patches = parsePatch(diff);
    if (patches.length !== 1 || patches[0]!.hunks.length === 0) throw new Error('not one file with changes');
    patched = applyPatch(base.content, diff);
  } catch {
    throw invalidField('diff', 'is not a unified diff of one file');
  }
  if (patched === false) {
    throw invalidField('diff', `does not apply to revision ${base.number}`);
  }
  return patched;
}

/**
 * workspace_propose: a new version of the artifact against the revision the
 * author read. A diff is applied to that revision now, so a proposal always
 * holds the full text it would write.
 */
export function proposeChange(room: Room, caller: Caller, args: InputOf<'proposeChange'>): ProposalOutput {
  syncArtifact(room);
  return change(room, ({ now, record }) => {
    const base = room.workspace.getRevision(args.base_revision);
    if (!base) {
      throw invalidField('base_revision', `${args.base_revision} does not exist`, {
        current_revision: currentRevision(room).number,
      });
    }
    if (typeof base.content !== 'string') {
      throw new DomainError(
        'conflict',
        `revision ${base.number} is not UTF-8 text (an outside edit); nothing can be proposed against it`,
        { reason: 'not_text', base_revision: base.number, current_revision: currentRevision(room).number },
      );
    }
    // The schema holds exactly one of content and diff.
    const content =
      args.content !== undefined ? args.content : applyDiff({ ...base, content: base.content }, args.diff!);
    // A proposal that changes nothing would only add noise to the history.
    if (content === base.content) {
      const field = args.diff !== undefined ? 'diff' : 'content';
      throw invalidField(field, `leaves revision ${base.number} as it is: a proposal changes something`);
    }
    const problem = textProblem(content);
    if (problem) {
      if (args.diff === undefined) throw invalidField('content', `is not UTF-8 text: ${problem}`);
      throw invalidField('diff', `gives a text that is not UTF-8 text: ${problem}`);
    }
    const row = {
      id: newProposalId(),
      status: 'open' as const,
      author: caller.participant,
      base_revision: base.number,
      summary: args.summary,
      content,
      diff: args.diff ?? null,
      created_at: now,
      mergeable_json: mergeableJson(
        mergeableOnto(room, { base_revision: base.number, content }, currentRevision(room)),
      ),
    };
    room.workspace.insertProposal(row);
    record({
      type: 'proposal.created',
      actor: caller.participant,
      handoffId: null,
      taskId: null,
      payload: { proposal_id: row.id, base_revision: base.number },
    });
    return output(room, { ...row, decided_by: null, decided_at: null, note: null, revision: null });
  });
}

function requireOpen(row: ProposalRow): void {
  if (row.status !== 'open') {
    throw new DomainError('conflict', `proposal ${row.id} is ${row.status}, not open`, { status: row.status });
  }
}

/**
 * proposal_approve: writes the proposed text as the next revision. A
 * proposal based on an older revision is merged onto the current one
 * (merge.ts): changes to other lines land, and the revision records the base
 * it was made against; overlapping changes are a conflict naming the lines,
 * and nothing is written. The file and the record of it are written in the
 * order of accepted-write.ts, so a crash at any moment leaves them agreeing
 * once the room starts again; the answer leaves only when both are on disk.
 */
export function approveProposal(room: Room, caller: Caller, args: InputOf<'approveProposal'>): ProposalOutput {
  syncArtifact(room); // an outside edit is a revision like any other: the proposal merges onto it
  // (1) The pending write, committed before the file is touched.
  const { write, bytes } = change(
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
      return { write, bytes };
    },
    DURABLE_NOW,
  );
  // (2) The file.
  try {
    writeArtifactFileAtomically(room.artifactPath, bytes);
  } catch (error) {
    change(room, () => room.workspace.deletePendingWrite(), DURABLE_NOW);
    throw couldNotWrite(room, error);
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
  return new DomainError(
    'unavailable',
    `the room could not write ${path.basename(room.artifactPath)} (${why}); nothing was accepted, the file is as it was and the proposal stays open`,
    { reason: code },
  );
}

function closeProposal(
  room: Room,
  caller: Caller,
  args: InputOf<'rejectProposal'>,
  status: 'rejected' | 'withdrawn',
): ProposalOutput {
  return change(room, ({ now, record }) => {
    const row = loadProposal(room, args.proposal_id);
    if (status === 'withdrawn' && row.author !== caller.participant) {
      throw new DomainError('forbidden', `only the author (${row.author}) may withdraw proposal ${row.id}`);
    }
    requireOpen(row);
    if (status === 'rejected') requireSecondPerson(room, caller, row.author, `proposal ${row.id}`);
    const decided = {
      ...row,
      status,
      decided_by: caller.participant,
      decided_at: now,
      note: args.note ?? null,
      revision: null,
    };
    room.workspace.decideProposal(decided);
    appendHistory(room, {
      kind: status === 'rejected' ? 'proposal_rejected' : 'proposal_withdrawn',
      at: now,
      actor: caller.participant,
      proposal_id: row.id,
      note: args.note ?? null,
    });
    record({
      type: status === 'rejected' ? 'proposal.rejected' : 'proposal.withdrawn',
      actor: caller.participant,
      handoffId: null,
      taskId: null,
      payload: { proposal_id: row.id },
    });
    return output(room, decided);
  });
}

/** proposal_reject: an approver closes an open proposal; the file is untouched. */
export const rejectProposal = (room: Room, caller: Caller, args: InputOf<'rejectProposal'>): ProposalOutput =>
  closeProposal(room, caller, args, 'rejected');

/** proposal_withdraw: the author takes back an open proposal. */
export const withdrawProposal = (room: Room, caller: Caller, args: InputOf<'withdrawProposal'>): ProposalOutput =>
  closeProposal(room, caller, args, 'withdrawn');
