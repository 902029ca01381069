import type { InputOf } from '../../../generated/operations.js';
import { randomBytes } from 'node:crypto';
import { applyPatch, parsePatch } from 'diff';
import type { Caller, ProposalOutput } from '../../../generated/types.js';
import type { ProposalRow, RevisionRow } from '../../store/rows.js';
import { currentRevision, syncArtifact } from '../artifact/artifact.js';
import { decodeArtifact, textProblem } from '../artifact/text.js';
import { DomainError, invalidField } from '../../errors.js';
import { appendHistory } from '../history.js';
import { MAX_OPEN_PROPOSALS } from '../limits.js';
import { change, type Room } from '../room.js';
import { mergeableJson, mergeableOnto } from './mergeable.js';
import { loadProposal, output, requireOpen } from './read-proposals.js';
import { requireSecondPerson } from '../settings.js';

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
    const open = room.workspace.countOpenProposalsBy(caller.participant);
    if (open >= MAX_OPEN_PROPOSALS) {
      throw new DomainError(
        'limit_reached',
        `${caller.participant} already has ${open} open proposals, the most one participant may have; withdraw one or wait for a decision`,
        { limit: MAX_OPEN_PROPOSALS },
      );
    }
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
