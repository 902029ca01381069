// Handoffs grouped by where they stand, each with the actions this session
// may take on it, and the form that asks for work.
import type { Handoff, HandoffInput, HandoffProgressOutput, Progress } from '../../generated/types.js';
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

/** The JSON-RPC code of a failure the assignee reports (as ce handoff-complete --error-message sends). */
const JSONRPC_INTERNAL_ERROR = -32603;

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

/** " (2 of 5)", " (2 done)" or nothing, as the assignee gave the numbers. */
function progressFigures(progress: Progress): string {
  if (progress.total) return ` (${progress.progress ?? 0} of ${progress.total})`;
  return progress.progress === undefined ? '' : ` (${progress.progress} done)`;
}

/** What the card says of the handoff: summary, who and when, progress, result, decision. */
function handoffInfo(handoff: Handoff): HTMLElement {
  const result = resultText(handoff);
  const decision = handoff.decision;
  const progress = handoff.progress;
  return h(
    'div',
    { class: 'info' },
    h('p', { class: 'summary' }, handoff.summary),
    h(
      'p',
      { class: 'meta' },
      `${STATUS_WORDS[handoff.status]} · from ${handoff.owner} · to ${handoff.assignee ?? 'anyone with write'} · ${when(handoff.created_at)}`,
    ),
    handoff.constraints ? h('p', { class: 'constraints' }, handoff.constraints) : null,
    progress
      ? h('p', { class: 'meta progress' }, `${progress.by}: ${progress.message}${progressFigures(progress)}`)
      : null,
    result !== null ? h('div', { class: 'result' }, h('strong', {}, 'Result'), h('pre', {}, result)) : null,
    decision
      ? h('p', { class: 'meta' }, `${decision.decision} by ${decision.by}${decision.note ? `: ${decision.note}` : ''}`)
      : null,
  );
}

/** The buttons this session may press on the handoff, each answered beside them. */
function handoffActions(context: PageContext, handoff: Handoff): HTMLElement | null {
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
  let note: HTMLElement | null = null;
  if (
    handoff.status === 'open' &&
    context.can('write') &&
    me !== null &&
    (handoff.assignee === null || handoff.assignee === me)
  ) {
    actions.push(button('Accept', 'primary', () => context.api.rest('POST', `/workspace/handoffs/${id}/accept`, {})));
  }
  if (handoff.status === 'result_ready' && context.can('approve')) {
    const noteId = `decision-note-${handoff.handoff_id}`;
    const noteField = h('input', { id: noteId, name: 'note', maxlength: 2000, autocomplete: 'off' });
    note = h(
      'div',
      { class: 'field' },
      h('label', { for: noteId }, 'Note (optional)'),
      noteField,
      h('small', { class: 'hint' }, 'recorded with your decision, for the assignee to read'),
    );
    const decision = () => (noteField.value.trim() ? { note: noteField.value.trim() } : {});
    actions.push(
      button('Approve result', 'primary', () =>
        context.api.rest('POST', `/workspace/handoffs/${id}/approve`, decision()),
      ),
      button('Reject result', 'danger', () => context.api.rest('POST', `/workspace/handoffs/${id}/reject`, decision())),
    );
  }
  if ((handoff.status === 'open' || handoff.status === 'accepted') && handoff.owner === me && context.can('write')) {
    actions.push(
      button('Cancel', '', () => context.api.rest('POST', '/workspace/task/cancel', { task_id: handoff.task_id })),
    );
  }
  if (actions.length === 0) return null;
  return h('div', { class: 'decide' }, note, h('div', { class: 'actions' }, actions), status);
}

/** Whether this session is the assignee of the handoff while its task works, and may write. */
function isWorkingAssignee(context: PageContext, handoff: Handoff): boolean {
  return (
    context.me.participant !== null &&
    handoff.assignee === context.me.participant &&
    groupOf(handoff) === 'accepted' &&
    context.can('write')
  );
}

/** A numeric field of the progress form; empty reads as undefined. */
function numberField(id: string, name: string, label: string, hint: string) {
  const input = h('input', {
    id,
    name,
    type: 'number',
    min: 0,
    step: 'any',
    inputmode: 'decimal',
    autocomplete: 'off',
  });
  return {
    input,
    element: h('div', { class: 'field' }, h('label', { for: id }, label), input, h('small', { class: 'hint' }, hint)),
    read: () => (input.value === '' ? undefined : Number(input.value)),
  };
}

/**
 * The assignee's work on an accepted handoff whose task is working: report
 * progress, ask the owner, complete with a text result, or report failure.
 * Built once per card and kept while the handoff stays so, so a half-written
 * result survives the progress reports around it.
 */
function assigneeTools(context: PageContext, handoff: Handoff): HTMLElement {
  const hid = handoff.handoff_id;
  // The progress the card shows now, and a report the room said would be shown shortly.
  let shown = handoff.progress?.at ?? null;
  let waiting: { message: string; before: string | null } | null = null;
  const path = `/workspace/handoffs/${encodeURIComponent(hid)}`;

  // Report progress: message (required, at most 500), progress and total.
  const progressStatus = h('p', { class: 'status', role: 'status' });
  const message = h('input', {
    id: `progress-message-${hid}`,
    name: 'message',
    required: true,
    maxlength: 500,
    autocomplete: 'off',
  });
  const done = numberField(`progress-done-${hid}`, 'progress', 'Done', 'so far');
  const total = numberField(`progress-total-${hid}`, 'total', 'Total', 'to do in all');
  const report = h('button', { type: 'submit', class: 'primary' }, 'Report progress');
  const progressForm = h(
    'form',
    { class: 'progress-form', 'aria-label': 'Report progress' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: message.id }, 'What you are doing now (required)'),
      message,
      h('small', { class: 'hint' }, `at most 500 characters; ${handoff.owner} sees it live`),
    ),
    h('div', { class: 'numbers' }, done.element, total.element),
    h('div', { class: 'actions' }, report),
    progressStatus,
  );
  progressForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const body: Record<string, unknown> = { message: message.value };
    const progress = done.read();
    const of = total.read();
    if (of !== undefined && !(of > 0)) {
      progressStatus.textContent = 'The total must be more than 0.';
      progressStatus.classList.add('error');
      total.input.focus();
      return;
    }
    if (progress !== undefined) body.progress = progress;
    if (of !== undefined) body.total = of;
    let answer: HandoffProgressOutput | null = null;
    const before = shown;
    void context.act({
      control: report,
      status: progressStatus,
      run: async () => {
        answer = await context.api.rest<HandoffProgressOutput>('POST', `${path}/progress`, body);
      },
      changes: ['handoffs'],
      done: () => {
        // The total is how much there is to do: it stays for the next report.
        message.value = '';
        done.input.value = '';
        waiting = answer?.committed ? null : { message: String(body.message), before };
        progressStatus.textContent = answer?.committed
          ? 'Reported.'
          : 'Reported; the room shows one report a second per task, so this one will be shown within a second.';
      },
    });
  });

  // Ask the owner: a message; the owner answers in one text field.
  const askStatus = h('p', { class: 'status', role: 'status' });
  const question = h('textarea', {
    id: `ask-message-${hid}`,
    name: 'message',
    required: true,
    rows: 2,
    maxlength: 8000,
  });
  const ask = h('button', { type: 'submit' }, 'Ask the owner');
  const askForm = h(
    'form',
    { class: 'ask-form', 'aria-label': 'Ask the owner' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: question.id }, `Question for ${handoff.owner} (required)`),
      question,
    ),
    h('small', { class: 'hint' }, 'the task waits for the answer (input required)'),
    h('div', { class: 'actions' }, ask),
    askStatus,
  );
  askForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void context.act({
      control: ask,
      status: askStatus,
      run: () => context.api.rest('POST', `${path}/input-requests`, { message: question.value }),
      changes: ['handoffs'],
      done: () => askForm.reset(),
    });
  });

  // Complete with a text result: a CallToolResult with one text block.
  const completeStatus = h('p', { class: 'status', role: 'status' });
  const resultField = h('textarea', { id: `result-text-${hid}`, name: 'result', required: true, rows: 4 });
  const complete = h('button', { type: 'submit', class: 'primary' }, 'Complete');
  const completeForm = h(
    'form',
    { class: 'complete-form', 'aria-label': 'Complete' },
    h('div', { class: 'field' }, h('label', { for: resultField.id }, 'Result (required)'), resultField),
    h('small', { class: 'hint' }, 'the result goes to an approver to decide'),
    h('div', { class: 'actions' }, complete),
    completeStatus,
  );
  completeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void context.act({
      control: complete,
      status: completeStatus,
      run: () =>
        context.api.rest('POST', `${path}/complete`, {
          result: { content: [{ type: 'text', text: resultField.value }] },
        }),
      changes: ['handoffs'],
      done: () => completeForm.reset(),
    });
  });

  // Report failure: the task fails with this message, the handoff is cancelled.
  const failStatus = h('p', { class: 'status', role: 'status' });
  const errorField = h('input', {
    id: `error-message-${hid}`,
    name: 'error',
    required: true,
    maxlength: 8000,
    autocomplete: 'off',
  });
  const fail = h('button', { type: 'submit', class: 'danger' }, 'Report failure');
  const failForm = h(
    'form',
    { class: 'fail-form', 'aria-label': 'Report failure' },
    h('div', { class: 'field' }, h('label', { for: errorField.id }, 'What went wrong (required)'), errorField),
    h('small', { class: 'hint' }, 'the task fails and the handoff is cancelled'),
    h('div', { class: 'actions' }, fail),
    failStatus,
  );
  failForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void context.act({
      control: fail,
      status: failStatus,
      run: () =>
        context.api.rest('POST', `${path}/complete`, {
          error: { code: JSONRPC_INTERNAL_ERROR, message: errorField.value },
        }),
      changes: ['handoffs'],
      done: () => failForm.reset(),
    });
  });

  const section = h(
    'section',
    { class: 'assignee', 'aria-label': 'Your work on this handoff' },
    h('h4', {}, 'Your work on this handoff'),
    progressForm,
    h('details', { class: 'more' }, h('summary', {}, 'Complete…'), completeForm),
    h('details', { class: 'more' }, h('summary', {}, 'Ask the owner…'), askForm),
    h('details', { class: 'more' }, h('summary', {}, 'Report failure…'), failForm),
  );
  // A report that waited says so no longer once the room shows it.
  followers.set(section, (next) => {
    const progress = next.progress;
    if (waiting && progress && progress.message === waiting.message && progress.at !== waiting.before) {
      waiting = null;
      progressStatus.textContent = 'Reported.';
    }
    shown = progress?.at ?? null;
  });
  return section;
}

/** The kept parts of cards that follow the handoff as it changes. */
const followers = new WeakMap<Element, (handoff: Handoff) => void>();

/**
 * The card's parts, each kept while what it shows stays the same: a
 * progress report changes the information, not the assignee's forms.
 */
function updateCard(context: PageContext, card: HTMLElement, handoff: Handoff): void {
  const who = `${context.me.participant}|${context.me.capabilities.join(',')}`;
  card.dataset.status = handoff.status;
  const parts: (Keyed | null)[] = [
    {
      key: 'info',
      signature: JSON.stringify([
        handoff.summary,
        handoff.status,
        handoff.owner,
        handoff.assignee,
        handoff.created_at,
        handoff.constraints,
        handoff.progress,
        handoff.result,
        handoff.error,
        handoff.decision,
      ]),
      build: () => handoffInfo(handoff),
    },
    handoff.inputs.length > 0
      ? {
          key: 'inputs',
          signature: `${JSON.stringify([handoff.inputs, handoff.owner])}|${who}`,
          build: () =>
            h(
              'ul',
              { class: 'inputs', 'aria-label': 'Input requests' },
              handoff.inputs.map((input) => inputItem(context, handoff, input)),
            ),
        }
      : null,
    isWorkingAssignee(context, handoff)
      ? { key: 'assignee', signature: `${handoff.owner}|${who}`, build: () => assigneeTools(context, handoff) }
      : null,
    {
      key: 'actions',
      signature: `${JSON.stringify([handoff.status, handoff.owner, handoff.assignee, handoff.task_id])}|${who}`,
      build: () => handoffActions(context, handoff) ?? h('div', { class: 'decide', hidden: true }),
    },
  ];
  reconcile(
    card,
    parts.filter((part): part is Keyed => part !== null),
  );
  for (const part of Array.from(card.children)) followers.get(part)?.(handoff);
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
        build: () => {
          const card = h('li', { class: 'card handoff', 'data-handoff-id': handoff.handoff_id });
          updateCard(context, card, handoff);
          return card;
        },
        update: (card: HTMLElement) => updateCard(context, card, handoff),
      }));
    reconcile(lists[group.id].list, items);
    lists[group.id].empty.hidden = items.length > 0;
  }
}
