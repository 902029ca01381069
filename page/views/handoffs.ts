// Handoffs grouped by where they stand, each with the actions this session
// may take on it, and the form that asks for work.
import type { Handoff, HandoffInput } from '../../generated/types.js';
import type { PageContext } from '../context.js';
import { h, reconcile, when, type Keyed } from '../dom.js';

export const GROUPS = [
  { id: 'open', title: 'Open' },
  { id: 'accepted', title: 'Accepted' },
  { id: 'input_required', title: 'Input required' },
  { id: 'result_ready', title: 'Result ready' },
  { id: 'decided', title: 'Decided' },
] as const;
export type Group = (typeof GROUPS)[number]['id'];

const pendingInputs = (handoff: Handoff): HandoffInput[] => handoff.inputs.filter((input) => input.response === null);

export function groupOf(handoff: Handoff): Group {
  switch (handoff.status) {
    case 'open':
      return 'open';
    case 'accepted':
      return pendingInputs(handoff).length > 0 ? 'input_required' : 'accepted';
    case 'result_ready':
      return 'result_ready';
    default:
      return 'decided';
  }
}

const STATUS_WORDS: Record<Handoff['status'], string> = {
  open: 'open',
  accepted: 'accepted',
  result_ready: 'result ready',
  approved: 'approved',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

/** The text of a result's content blocks; other blocks are named by their type. */
function resultText(handoff: Handoff): string | null {
  if (handoff.error) return `failed: ${handoff.error.message}`;
  if (!handoff.result) return null;
  const text = handoff.result.content
    .map((block) => (block.type === 'text' && 'text' in block ? String(block.text) : `[${block.type}]`))
    .join('\n');
  return handoff.result.isError ? `error: ${text}` : text;
}

type Field = { type: string; title?: string; description?: string; enum?: unknown[]; items?: { enum?: unknown[] } };

/** One control for a field of the request's schema; `read` gives its value (undefined when left empty). */
function fieldControl(name: string, field: Field, required: boolean, idBase: string) {
  const id = `${idBase}-${name}`;
  const label = `${field.title ?? name}${required ? ' (required)' : ''}`;
  const hint = field.description ? h('small', { class: 'hint' }, field.description) : null;
  if (field.type === 'boolean') {
    const box = h('input', { type: 'checkbox', id, name });
    return {
      element: h('div', { class: 'field check' }, box, h('label', { for: id }, label), hint),
      read: () => box.checked,
    };
  }
  const options = field.type === 'array' ? field.items?.enum : field.enum;
  if (Array.isArray(options)) {
    const select = h(
      'select',
      { id, name, required: required && field.type !== 'array', multiple: field.type === 'array' },
      field.type === 'array' ? null : h('option', { value: '' }, '—'),
      options.map((option) => h('option', { value: String(option) }, String(option))),
    );
    return {
      element: h('div', { class: 'field' }, h('label', { for: id }, label), select, hint),
      read: () =>
        field.type === 'array'
          ? Array.from(select.selectedOptions).map((option) => option.value)
          : select.value === ''
            ? undefined
            : select.value,
    };
  }
  const numeric = field.type === 'number' || field.type === 'integer';
  const input = h('input', {
    id,
    name,
    type: numeric ? 'number' : 'text',
    step: field.type === 'integer' ? '1' : numeric ? 'any' : undefined,
    required,
    autocomplete: 'off',
  });
  return {
    element: h('div', { class: 'field' }, h('label', { for: id }, label), input, hint),
    read: () => (input.value === '' ? undefined : numeric ? Number(input.value) : input.value),
  };
}

/** The owner's answer to one input request: a form built from the request's schema. */
function answerForm(context: PageContext, handoff: Handoff, input: HandoffInput): HTMLElement {
  const schema = input.request.params.requestedSchema;
  const required = new Set(schema.required ?? []);
  const idBase = `answer-${input.key}`;
  const fields = Object.entries(schema.properties).map(([name, field]) => ({
    name,
    ...fieldControl(name, field as Field, required.has(name), idBase),
  }));
  const status = h('p', { class: 'status', role: 'status' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send answer');
  const decline = h('button', { type: 'button' }, 'Decline');
  const form = h(
    'form',
    { class: 'answer', 'aria-label': `Answer: ${input.request.params.message}` },
    fields.map((field) => field.element),
    h('div', { class: 'actions' }, send, decline),
    status,
  );
  const answer = (control: HTMLElement, response: Record<string, unknown>) =>
    context.act({
      control,
      status,
      run: () =>
        context.api.rest('POST', '/workspace/task/input-responses', {
          task_id: handoff.task_id,
          input_responses: { [input.key]: response },
        }),
      changes: ['handoffs'],
      done: () => form.reset(),
    });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const content: Record<string, unknown> = {};
    for (const field of fields) {
      const value = field.read();
      if (value !== undefined) content[field.name] = value;
    }
    void answer(send, { action: 'accept', content });
  });
  decline.addEventListener('click', () => void answer(decline, { action: 'decline' }));
  return form;
}

function inputItem(context: PageContext, handoff: Handoff, input: HandoffInput): HTMLElement {
  const asked = h('p', {}, h('strong', {}, `${input.requested_by} asks: `), input.request.params.message);
  if (input.response) {
    const content = input.response.content ? JSON.stringify(input.response.content) : '';
    return h(
      'li',
      { class: 'input answered' },
      asked,
      h('p', { class: 'meta' }, `${input.answered_by ?? 'the owner'} answered (${input.response.action}) ${content}`),
    );
  }
  const owner = handoff.owner === context.me.participant && context.can('write');
  return h(
    'li',
    { class: 'input pending' },
    asked,
    owner ? answerForm(context, handoff, input) : h('p', { class: 'meta' }, `waiting for ${handoff.owner} to answer`),
  );
}

function handoffItem(context: PageContext, handoff: Handoff): HTMLElement {
  const me = context.me.participant;
  const status = h('p', { class: 'status', role: 'status' });
  const id = encodeURIComponent(handoff.handoff_id);
  const button = (label: string, className: string, run: () => Promise<unknown>) => {
    const element = h('button', { type: 'button', class: className }, label);
    element.addEventListener('click', () =>
      context.act({ control: element, status, run, changes: ['handoffs', 'history'] }),
    );
    return element;
  };
  const actions: HTMLElement[] = [];
  if (
    handoff.status === 'open' &&
    context.can('write') &&
    me !== null &&
    (handoff.assignee === null || handoff.assignee === me)
  ) {
    actions.push(button('Accept', 'primary', () => context.api.rest('POST', `/workspace/handoffs/${id}/accept`, {})));
  }
  if (handoff.status === 'result_ready' && context.can('approve')) {
    actions.push(
      button('Approve result', 'primary', () => context.api.rest('POST', `/workspace/handoffs/${id}/approve`, {})),
      button('Reject result', 'danger', () => context.api.rest('POST', `/workspace/handoffs/${id}/reject`, {})),
    );
  }
  if ((handoff.status === 'open' || handoff.status === 'accepted') && handoff.owner === me && context.can('write')) {
    actions.push(
      button('Cancel', '', () => context.api.rest('POST', '/workspace/task/cancel', { task_id: handoff.task_id })),
    );
  }
  const result = resultText(handoff);
  const decision = handoff.decision;
  return h(
    'li',
    { class: 'card handoff', 'data-handoff-id': handoff.handoff_id, 'data-status': handoff.status },
    h('p', { class: 'summary' }, handoff.summary),
    h(
      'p',
      { class: 'meta' },
      `${STATUS_WORDS[handoff.status]} · from ${handoff.owner} · to ${handoff.assignee ?? 'anyone with write'} · ${when(handoff.created_at)}`,
    ),
    handoff.constraints ? h('p', { class: 'constraints' }, handoff.constraints) : null,
    handoff.progress
      ? h(
          'p',
          { class: 'meta' },
          `${handoff.progress.by}: ${handoff.progress.message}${handoff.progress.total ? ` (${handoff.progress.progress ?? 0} of ${handoff.progress.total})` : ''}`,
        )
      : null,
    result !== null ? h('div', { class: 'result' }, h('strong', {}, 'Result'), h('pre', {}, result)) : null,
    decision
      ? h('p', { class: 'meta' }, `${decision.decision} by ${decision.by}${decision.note ? `: ${decision.note}` : ''}`)
      : null,
    handoff.inputs.length > 0
      ? h(
          'ul',
          { class: 'inputs', 'aria-label': 'Input requests' },
          handoff.inputs.map((input) => inputItem(context, handoff, input)),
        )
      : null,
    actions.length > 0 ? h('div', { class: 'actions' }, actions) : null,
    status,
  );
}

/** The form that asks for work: summary, assignee, constraints. */
export function createHandoffForm(context: PageContext): HTMLElement {
  const summary = h('textarea', { id: 'new-summary', name: 'summary', required: true, rows: 2, maxlength: 2000 });
  const assignee = h('input', { id: 'new-assignee', name: 'assignee', autocomplete: 'off' });
  const constraints = h('textarea', { id: 'new-constraints', name: 'constraints', rows: 2, maxlength: 8000 });
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
    const body: Record<string, string> = { summary: summary.value };
    if (assignee.value.trim()) body.assignee = assignee.value.trim();
    if (constraints.value.trim()) body.constraints = constraints.value;
    void context.act({
      control: send,
      status,
      run: () => context.api.rest('POST', '/workspace/handoffs', body),
      changes: ['handoffs'],
      done: () => form.reset(),
    });
  });
  return form;
}

export function renderHandoffs(
  lists: Record<Group, { list: HTMLElement; empty: HTMLElement }>,
  context: PageContext,
  handoffs: Handoff[],
): void {
  const who = `${context.me.participant}|${context.me.capabilities.join(',')}`;
  for (const group of GROUPS) {
    const items: Keyed[] = handoffs
      .filter((handoff) => groupOf(handoff) === group.id)
      .map((handoff) => ({
        key: handoff.handoff_id,
        signature: `${JSON.stringify(handoff)}|${who}`,
        build: () => handoffItem(context, handoff),
      }));
    reconcile(lists[group.id].list, items);
    lists[group.id].empty.hidden = items.length > 0;
  }
}
