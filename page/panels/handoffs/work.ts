// Working: the assignee's tools on a handoff whose task works (progress,
// questions, completion, failure).
import type { Handoff, HandoffProgressOutput } from '../../../generated/types.js';
import type { PageContext } from '../../context.js';
import { h } from '../../dom.js';
import { handoffAllows, INPUT_LIMITS } from '../../../generated/rules.js';
import { pendingInputs } from './groups.js';

/** The JSON-RPC code of a failure the assignee reports (as ce handoff-complete --error-message sends). */
const JSONRPC_INTERNAL_ERROR = -32603;

/** The kept parts of cards that follow the handoff as it changes. */
export const followers = new WeakMap<Element, (handoff: Handoff) => void>();

/**
 * Whether this session is the assignee of an accepted handoff, and may
 * write: its tools stay on the card, hidden while a question of theirs waits
 * for the owner (the task works again once it is answered), so that what
 * they had typed is there when they come back.
 */
export function isWorkingAssignee(context: PageContext, handoff: Handoff): boolean {
  return (
    context.me.participant !== null &&
    handoff.assignee === context.me.participant &&
    handoffAllows('work', handoff.status) &&
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
 * A form of one required field that sends it: labelled, with a hint, its
 * button named as the form, its answer beside it; emptied once sent.
 */
function oneFieldForm(
  context: PageContext,
  options: {
    name: string;
    className: string;
    field: HTMLInputElement | HTMLTextAreaElement;
    label: string;
    hint: string;
    /** The button's class: primary, danger, or none. */
    button: string;
    /** What a screen reader is told once it is sent. */
    said: string;
    send: (value: string) => Promise<unknown>;
  },
): HTMLFormElement {
  const { field } = options;
  const status = h('p', { class: 'status', role: 'status' });
  const submit = h('button', { type: 'submit', class: options.button || undefined }, options.name);
  const form = h(
    'form',
    { class: options.className, 'aria-label': options.name },
    h('div', { class: 'field' }, h('label', { for: field.id }, options.label), field),
    h('small', { class: 'hint' }, options.hint),
    h('div', { class: 'actions' }, submit),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void context.act({
      control: submit,
      status,
      run: () => options.send(field.value),
      changes: ['handoffs'],
      done: () => form.reset(),
      said: options.said,
    });
  });
  return form;
}

/**
 * The assignee's work on an accepted handoff whose task is working: report
 * progress, ask the owner, complete with a text result, or report failure.
 * Built once per card and kept while the handoff stays so, so a half-written
 * result survives the progress reports around it.
 */
export function assigneeTools(context: PageContext, handoff: Handoff): HTMLElement {
  const hid = handoff.handoff_id;
  // The progress the card shows now, and a report the room said would be shown shortly.
  let shown = handoff.progress?.at ?? null;
  let waiting: { message: string; before: string | null } | null = null;
  const path = { handoff_id: hid };

  // Report progress: message (required, with its limit), progress and total.
  const progressStatus = h('p', { class: 'status', role: 'status' });
  const message = h('input', {
    id: `progress-message-${hid}`,
    name: 'message',
    required: true,
    maxlength: INPUT_LIMITS.reportProgress.message.maxLength,
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
      h(
        'small',
        { class: 'hint' },
        `at most ${INPUT_LIMITS.reportProgress.message.maxLength} characters; ${handoff.owner} sees it live`,
      ),
    ),
    h('div', { class: 'numbers' }, done.element, total.element),
    h('div', { class: 'actions' }, report),
    progressStatus,
  );
  progressForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const body: { message: string; progress?: number; total?: number } = { message: message.value };
    const progress = done.read();
    const of = total.read();
    if (of !== undefined && !(of > INPUT_LIMITS.reportProgress.total.exclusiveMinimum)) {
      progressStatus.textContent = `The total must be more than ${INPUT_LIMITS.reportProgress.total.exclusiveMinimum}.`;
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
        answer = await context.api.rest((room) =>
          room.POST('/workspace/handoffs/{handoff_id}/progress', { params: { path }, body }),
        );
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
  const askForm = oneFieldForm(context, {
    name: 'Ask the owner',
    className: 'ask-form',
    field: h('textarea', {
      id: `ask-message-${hid}`,
      name: 'message',
      required: true,
      rows: 2,
      maxlength: INPUT_LIMITS.requestHandoffInput.message.maxLength,
    }),
    label: `Question for ${handoff.owner} (required)`,
    hint: 'the task waits for the answer (input required)',
    button: '',
    said: `Question sent to ${handoff.owner}: the task waits for the answer.`,
    send: (message) =>
      context.api.rest((room) =>
        room.POST('/workspace/handoffs/{handoff_id}/input-requests', { params: { path }, body: { message } }),
      ),
  });

  // Complete with a text result: a CallToolResult with one text block.
  const completeForm = oneFieldForm(context, {
    name: 'Complete',
    className: 'complete-form',
    field: h('textarea', { id: `result-text-${hid}`, name: 'result', required: true, rows: 4 }),
    label: 'Result (required)',
    hint: 'the result goes to an approver to decide',
    button: 'primary',
    said: 'Result sent: an approver decides it.',
    send: (text) =>
      context.api.rest((room) =>
        room.POST('/workspace/handoffs/{handoff_id}/complete', {
          params: { path },
          body: { result: { content: [{ type: 'text', text }] } },
        }),
      ),
  });

  // Report failure: the task fails with this message, the handoff is cancelled.
  const failForm = oneFieldForm(context, {
    name: 'Report failure',
    className: 'fail-form',
    field: h('input', {
      id: `error-message-${hid}`,
      name: 'error',
      required: true,
      maxlength: INPUT_LIMITS.completeHandoff['error.message'].maxLength,
      autocomplete: 'off',
    }),
    label: 'What went wrong (required)',
    hint: 'the task fails and the handoff is cancelled',
    button: 'danger',
    said: 'Failure reported: the handoff is cancelled.',
    send: (message) =>
      context.api.rest((room) =>
        room.POST('/workspace/handoffs/{handoff_id}/complete', {
          params: { path },
          body: { error: { code: JSONRPC_INTERNAL_ERROR, message } },
        }),
      ),
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
  section.hidden = pendingInputs(handoff).length > 0;
  // A report that waited says so no longer once the room shows it; the tools wait while a question does.
  followers.set(section, (next) => {
    section.hidden = pendingInputs(next).length > 0;
    const progress = next.progress;
    if (waiting && progress && progress.message === waiting.message && progress.at !== waiting.before) {
      waiting = null;
      progressStatus.textContent = 'Reported.';
    }
    shown = progress?.at ?? null;
  });
  return section;
}
