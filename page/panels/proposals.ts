// Open proposals: author, summary and the change against the current
// revision, with the decisions this session may take.
import { structuredPatch } from 'diff';
import type { ArtifactReadOutput, Proposal } from '../../generated/types.js';
import { INPUT_LIMITS } from '../../generated/rules.js';
import type { PageContext } from '../context.js';
import { h, reconcile, when } from '../dom.js';

/** The proposal's change against the file as it is now, one line per element. */
function diffLines(current: string, proposed: string): HTMLElement {
  const patch = structuredPatch('current', 'proposed', current, proposed, '', '', { context: 2 });
  const lines = patch.hunks.flatMap((hunk) => [
    h('span', { class: 'diff-hunk' }, `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`),
    ...hunk.lines.map((line) =>
      h('span', { class: line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : 'diff-same' }, line),
    ),
  ]);
  if (lines.length === 0) lines.push(h('span', { class: 'diff-same' }, 'no change to the current text'));
  return h('pre', { class: 'diff', 'aria-label': 'Change against the current revision' }, lines);
}

function proposalItem(context: PageContext, proposal: Proposal, artifact: ArtifactReadOutput): HTMLElement {
  const current = artifact.revision.number;
  const stale = proposal.base_revision !== current;
  const status = h('p', { class: 'status', role: 'status' });
  const mine = proposal.author === context.me.participant;
  // An approver's note, recorded with the decision (Approve or Reject).
  const noteId = `proposal-note-${proposal.proposal_id}`;
  const noteField = context.can('approve')
    ? h('input', {
        id: noteId,
        name: 'note',
        maxlength: INPUT_LIMITS.approveProposal.note.maxLength,
        autocomplete: 'off',
      })
    : null;
  const decide = (label: string, path: 'approve' | 'reject' | 'withdraw', className: string) => {
    const button = h('button', { type: 'button', class: className }, label);
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
      });
    });
    return button;
  };
  const actions = [
    context.can('approve') ? decide('Approve', 'approve', 'primary') : null,
    context.can('approve') ? decide('Reject', 'reject', 'danger') : null,
    mine && context.can('write') ? decide('Withdraw', 'withdraw', '') : null,
  ].filter((button) => button !== null);
  return h(
    'li',
    { class: 'card proposal', 'data-proposal-id': proposal.proposal_id },
    h('p', { class: 'summary' }, proposal.summary || '(no summary)'),
    h(
      'p',
      { class: 'meta' },
      `by ${proposal.author} · against revision ${proposal.base_revision} · ${when(proposal.created_at)}`,
    ),
    stale
      ? h(
          'p',
          { class: 'notice stale' },
          `Based on revision ${proposal.base_revision}; the file is at revision ${current} now. Approving merges it onto revision ${current}, unless both changed the same lines: then the room says which, and the author can propose it again from revision ${current}.`,
        )
      : null,
    artifact.revision.utf8 === false ? null : diffLines(artifact.content, proposal.content),
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
