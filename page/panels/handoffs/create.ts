// Asking for work: the form that creates a handoff.
import type { HandoffCreateInput } from '../../../generated/types.js';
import { INPUT_LIMITS } from '../../../generated/rules.js';
import type { PageContext } from '../../context.js';
import { h } from '../../dom.js';

const LIMITS = INPUT_LIMITS.createHandoff;

/** The form that asks for work: summary, assignee, constraints. */
export function createHandoffForm(context: PageContext): HTMLElement {
  const summary = h('textarea', {
    id: 'new-summary',
    name: 'summary',
    required: true,
    rows: 2,
    maxlength: LIMITS.summary.maxLength,
  });
  const assignee = h('input', { id: 'new-assignee', name: 'assignee', autocomplete: 'off' });
  const constraints = h('textarea', {
    id: 'new-constraints',
    name: 'constraints',
    rows: 2,
    maxlength: LIMITS.constraints.maxLength,
  });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Create handoff');
  const status = h('p', { class: 'status', role: 'status' });
  const form = h(
    'form',
    { id: 'create-handoff', 'aria-labelledby': 'create-handoff-heading' },
    h('h3', { id: 'create-handoff-heading' }, 'Ask for work'),
    h('div', { class: 'field' }, h('label', { for: 'new-summary' }, 'Summary (required)'), summary),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'new-assignee' }, 'Assignee'),
      assignee,
      h('small', { class: 'hint' }, 'a participant; empty for anyone with write'),
    ),
    h('div', { class: 'field' }, h('label', { for: 'new-constraints' }, 'Constraints'), constraints),
    h('div', { class: 'actions' }, send),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body: HandoffCreateInput = { summary: summary.value };
    if (assignee.value.trim()) body.assignee = assignee.value.trim();
    if (constraints.value.trim()) body.constraints = constraints.value;
    void context.act({
      control: send,
      status,
      run: () => context.api.rest((room) => room.POST('/workspace/handoffs', { body })),
      changes: ['handoffs'],
      done: () => {
        form.reset();
        status.textContent = 'Handoff created.';
      },
    });
  });
  return form;
}
