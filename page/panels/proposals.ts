// Open proposals: author, summary, the change against its base as a diff,
// whether it merges onto the current revision (where both changed the same
// lines, those lines as a diff), and the decisions this session may take.
import type { ArtifactReadOutput, LineRange, MergeConflict, Proposal } from '../../generated/types.js';
import { INPUT_LIMITS } from '../../generated/rules.js';
import type { PageContext } from '../context.js';
import { diffView, unifiedDiff } from '../diff-view.js';
import { h, reconcile, when } from '../dom.js';

/** `line 3`, `lines 3–5`, `after line 2`: a line range as a person reads it. */
function linesSaid({ start, count }: LineRange): string {
  if (count === 0) return start === 1 ? 'at the start' : `after line ${start - 1}`;
  return count === 1 ? `line ${start}` : `lines ${start}–${start + count - 1}`;
}

/** The lines of `text` in `range`, each with its line end. */
const linesIn = (text: string, { start, count }: LineRange): string =>
  text
    .split('\n')
    .slice(start - 1, start - 1 + count)
    .map((line) => `${line}\n`)
    .join('');

/** One conflict as a diff: the current revision's lines against the proposal's. */
function conflictView(artifact: ArtifactReadOutput, proposal: Proposal, conflict: MergeConflict): HTMLElement {
  const now = `revision ${artifact.revision.number}, ${linesSaid(conflict.current)}`;
  const theirs = `the proposal, ${linesSaid(conflict.proposal)}`;
  const diff = unifiedDiff(
    artifact.name,
    linesIn(artifact.content, conflict.current),
    linesIn(proposal.content, conflict.proposal),
    now,
    theirs,
  );
  return diffView(
    diff,
    `${linesSaid(conflict.base)} of revision ${proposal.base_revision}: ${now} (−) against ${theirs} (+)`,
  );
}

/** What the room worked out of the proposal against the current revision, said for a person; null when up to date. */
function mergeNotice(proposal: Proposal, artifact: ArtifactReadOutput): HTMLElement | null {
  const merge = proposal.mergeable;
  if (!merge || merge.status === 'up_to_date') return null;
  const based = `Based on revision ${proposal.base_revision}; the file is at revision ${merge.revision} now.`;
  if (merge.status === 'clean') {
    return h('p', { class: 'notice merge clean' }, `${based} It merges cleanly: approving writes both changes.`);
  }
  if (merge.status === 'not_text') {
    return h(
      'p',
      { class: 'notice merge conflicts' },
      `${based} An outside edit left the file not UTF-8 text, so nothing can be approved until it is saved as UTF-8 text again.`,
    );
  }
  if (merge.status === 'already_applied') {
    return h(
      'p',
      { class: 'notice merge applied' },
      `${based} The file already holds its changes, so approving it would write nothing new: it can be rejected or withdrawn.`,
    );
  }
  return h(
    'div',
    { class: 'notice merge conflicts' },
    h('p', {}, `${based} Both changed the same lines, so it cannot be approved as it is:`),
    h(
      'ul',
      {},
      merge.conflicts.map((c) =>
        h(
          'li',
          {},
          `${linesSaid(c.base)} of revision ${proposal.base_revision}: ${linesSaid(c.current)} now, ${linesSaid(c.proposal)} in the proposal`,
        ),
      ),
    ),
    // The lines themselves, once the page holds the revision the room compared against.
    merge.revision === artifact.revision.number && artifact.revision.utf8 !== false
      ? merge.conflicts.map((conflict) => conflictView(artifact, proposal, conflict))
      : null,
    h('p', {}, `The author can propose it again from revision ${merge.revision}.`),
  );
}

function proposalItem(context: PageContext, proposal: Proposal, artifact: ArtifactReadOutput): HTMLElement {
  // The room would refuse to approve either.
  const refusedIfApproved =
    proposal.mergeable !== null && ['conflicts', 'already_applied', 'not_text'].includes(proposal.mergeable.status);
  const status = h('p', { class: 'status', role: 'status' });
  const mine = proposal.author === context.me.participant;
  // With four eyes another approver decides one's own proposal: the room would refuse it.
  const decides = context.can('approve') && !(context.me.four_eyes && mine);
  // An approver's note, recorded with the decision (Approve or Reject).
  const noteId = `proposal-note-${proposal.proposal_id}`;
  const noteField = decides
    ? h('input', {
        id: noteId,
        name: 'note',
        maxlength: INPUT_LIMITS.approveProposal.note.maxLength,
        autocomplete: 'off',
      })
    : null;
  const summaryId = `proposal-summary-${proposal.proposal_id}`;
  const said = { approve: 'Proposal approved', reject: 'Proposal rejected', withdraw: 'Proposal withdrawn' };
  // Each button names its proposal to a screen reader: there is an Approve per card.
  const decide = (label: string, path: 'approve' | 'reject' | 'withdraw', className: string) => {
    const button = h('button', { type: 'button', class: className, 'aria-describedby': summaryId }, label);
    button.addEventListener('click', () => {
      const note = path === 'withdraw' ? '' : (noteField?.value.trim() ?? '');
      void context.act({
        control: button,
        status,
        run: () =>
          context.api.rest((room) =>
            room.POST(`/workspace/proposals/{proposal_id}/${path}`, {
              params: { path: { proposal_id: proposal.proposal_id } },
              body: note ? { note } : {},
            }),
          ),
        changes: path === 'approve' ? ['proposals', 'artifact', 'history'] : ['proposals', 'history'],
        said: `${said[path]}: ${proposal.summary || '(no summary)'}`,
      });
    });
    return button;
  };
  const actions = [
    decides && !refusedIfApproved ? decide('Approve', 'approve', 'primary') : null,
    decides ? decide('Reject', 'reject', 'danger') : null,
    mine && context.can('write') ? decide('Withdraw', 'withdraw', '') : null,
  ].filter((button) => button !== null);
  return h(
    'li',
    {
      class: 'card proposal',
      id: `proposal-card-${proposal.proposal_id}`,
      'aria-labelledby': summaryId,
      'data-proposal-id': proposal.proposal_id,
    },
    h('p', { class: 'summary', id: summaryId }, proposal.summary || '(no summary)'),
    h(
      'p',
      { class: 'meta' },
      `by ${proposal.author} · against revision ${proposal.base_revision} · ${when(proposal.created_at)}`,
    ),
    proposal.diff === ''
      ? h('p', { class: 'meta' }, `no change to revision ${proposal.base_revision}`)
      : diffView(proposal.diff, `The change against revision ${proposal.base_revision}`),
    mergeNotice(proposal, artifact),
    noteField
      ? h(
          'div',
          { class: 'field' },
          h('label', { for: noteId }, 'Note (optional)'),
          noteField,
          h('small', { class: 'hint' }, 'recorded with your decision, for the author to read'),
        )
      : null,
    actions.length > 0 ? h('div', { class: 'actions' }, actions) : null,
    status,
  );
}

export function renderProposals(
  list: HTMLElement,
  empty: HTMLElement,
  context: PageContext,
  proposals: Proposal[],
  artifact: ArtifactReadOutput,
): void {
  const facts = `${artifact.revision.number}:${artifact.revision.hash}`;
  reconcile(
    list,
    proposals.map((proposal) => ({
      key: proposal.proposal_id,
      signature: `${JSON.stringify(proposal)}|${facts}`,
      build: () => proposalItem(context, proposal, artifact),
    })),
  );
  empty.hidden = proposals.length > 0;
}
