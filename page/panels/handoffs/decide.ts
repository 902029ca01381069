// Deciding: the buttons this session may press on a handoff (accept it,
// approve or reject its result, cancel it), each answered beside them.
import type { Handoff } from '../../../generated/types.js';
import { handoffAllows, INPUT_LIMITS } from '../../../generated/rules.js';
import type { PageContext } from '../../context.js';
import { h } from '../../dom.js';

/** The buttons this session may press on the handoff, each answered beside them. */
export function handoffActions(context: PageContext, handoff: Handoff): HTMLElement | null {
  const me = context.me.participant;
  const status = h('p', { class: 'status', role: 'status' });
  const path = { handoff_id: handoff.handoff_id };
  // Each button names its handoff to a screen reader: there is one Accept (or Cancel) per card.
  const button = (label: string, className: string, run: () => Promise<unknown>, said: string) => {
    const element = h(
      'button',
      { type: 'button', class: className, 'aria-describedby': `handoff-summary-${handoff.handoff_id}` },
      label,
    );
    element.addEventListener('click', () =>
      context.act({ control: element, status, run, changes: ['handoffs', 'history'], said }),
    );
    return element;
  };
  const actions: HTMLElement[] = [];
  let note: HTMLElement | null = null;
  if (
    handoffAllows('accept', handoff.status) &&
    context.can('write') &&
    me !== null &&
    (handoff.assignee === null || handoff.assignee === me)
  ) {
    actions.push(
      button(
        'Accept',
        'primary',
        () => context.api.rest((room) => room.POST('/workspace/handoffs/{handoff_id}/accept', { params: { path } })),
        `Accepted: ${handoff.summary}`,
      ),
    );
  }
  // With four eyes another approver decides the result of one's own work: the room would refuse it.
  const ownResult = context.me.four_eyes && handoff.assignee === me;
  if (handoffAllows('decide', handoff.status) && context.can('approve') && !ownResult) {
    const noteId = `decision-note-${handoff.handoff_id}`;
    const noteField = h('input', {
      id: noteId,
      name: 'note',
      maxlength: INPUT_LIMITS.approveHandoff.note.maxLength,
      autocomplete: 'off',
    });
    note = h(
      'div',
      { class: 'field' },
      h('label', { for: noteId }, 'Note (optional)'),
      noteField,
      h('small', { class: 'hint' }, 'recorded with your decision, for the assignee to read'),
    );
    const decision = () => (noteField.value.trim() ? { note: noteField.value.trim() } : {});
    actions.push(
      button(
        'Approve result',
        'primary',
        () =>
          context.api.rest((room) =>
            room.POST('/workspace/handoffs/{handoff_id}/approve', { params: { path }, body: decision() }),
          ),
        `Result approved: ${handoff.summary}`,
      ),
      button(
        'Reject result',
        'danger',
        () =>
          context.api.rest((room) =>
            room.POST('/workspace/handoffs/{handoff_id}/reject', { params: { path }, body: decision() }),
          ),
        `Result rejected: ${handoff.summary}`,
      ),
    );
  }
  if (handoffAllows('cancel', handoff.status) && handoff.owner === me && context.can('write')) {
    actions.push(
      button(
        'Cancel handoff',
        '',
        () => context.api.rest((room) => room.POST('/workspace/task/cancel', { body: { task_id: handoff.task_id } })),
        `Handoff cancelled: ${handoff.summary}`,
      ),
    );
  }
  if (actions.length === 0) return null;
  return h('div', { class: 'decide' }, note, h('div', { class: 'actions' }, actions), status);
}
