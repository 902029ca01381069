// Answering: the owner's answer to the assignee's questions, a form built
// from each request's schema.
import type { components } from '../../../generated/openapi-types.js';
import type { Handoff, HandoffInput } from '../../../generated/types.js';
import type { PageContext } from '../../context.js';
import { h } from '../../dom.js';
import { fieldsView } from '../../fields.js';

/** A titled choice: its value, and what it reads as. */
type Titled = { const?: unknown; title?: string };
type Field = {
  type: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  /** Labels of `enum`'s values, in order (the form's older way to title them). */
  enumNames?: string[];
  oneOf?: Titled[];
  default?: unknown;
  items?: { enum?: unknown[]; anyOf?: Titled[] };
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** A string's kind, which the room does not check: the browser's own control for it, where it has one. */
  format?: string;
};

/**
 * Inputs for a string's format, the browser checking it and offering its own
 * picker: what each gives reads as the format says (a date as YYYY-MM-DD).
 * A date-time has none: the browser's datetime-local gives no time zone.
 */
const FORMAT_INPUTS: Readonly<Record<string, string>> = { email: 'email', uri: 'url', date: 'date' };

/**
 * The choices a field offers, each a value and its label: MCP's forms list
 * them as `enum` (titled by `enumNames`), or titled as `oneOf` (`anyOf` for a
 * multiple choice).
 */
function choicesOf(
  list: unknown[] | undefined,
  titled: Titled[] | undefined,
  names?: string[],
): { value: string; label: string }[] | null {
  if (Array.isArray(list)) {
    return list.map((option, i) => ({ value: String(option), label: names?.[i] ?? String(option) }));
  }
  if (Array.isArray(titled)) {
    return titled.map((option) => ({ value: String(option.const), label: option.title ?? String(option.const) }));
  }
  return null;
}

/** One control for a field of the request's schema; `read` gives its value (undefined when left empty). */
function fieldControl(name: string, field: Field, required: boolean, idBase: string) {
  const id = `${idBase}-${name}`;
  const label = `${field.title ?? name}${required ? ' (required)' : ''}`;
  // The field's description, read with it by a screen reader; its default, what the form starts with (and resets to).
  const hint = field.description ? h('small', { class: 'hint', id: `${id}-hint` }, field.description) : null;
  const described = hint ? `${id}-hint` : undefined;
  if (field.type === 'boolean') {
    const box = h('input', {
      type: 'checkbox',
      id,
      name,
      checked: field.default === true,
      'aria-describedby': described,
    });
    return {
      element: h(
        'div',
        { class: 'field check' },
        h('span', { class: 'box' }, box, h('label', { for: id }, label)),
        hint,
      ),
      read: () => box.checked,
    };
  }
  const options =
    field.type === 'array'
      ? choicesOf(field.items?.enum, field.items?.anyOf)
      : choicesOf(field.enum, field.oneOf, field.enumNames);
  const chosen = new Set((Array.isArray(field.default) ? field.default : [field.default]).map(String));
  if (options && field.type === 'array') {
    // Several choices: a box each, in a group named by the field, where a multiple select
    // took Ctrl and a click, or Shift and the arrows, which nothing on the page said.
    const boxes = options.map((option, i) =>
      h('input', { type: 'checkbox', id: `${id}-${i}`, name, value: option.value, checked: chosen.has(option.value) }),
    );
    return {
      element: h(
        'fieldset',
        { class: 'field choices', 'aria-describedby': described },
        h('legend', {}, label),
        boxes.map((box, i) => h('span', { class: 'box' }, box, h('label', { for: box.id }, options[i]!.label))),
        hint,
      ),
      read: () => boxes.filter((box) => box.checked).map((box) => box.value),
    };
  }
  if (options) {
    const select = h(
      'select',
      { id, name, required, 'aria-describedby': described },
      h('option', { value: '' }, '—'),
      options.map((option) => h('option', { value: option.value, selected: chosen.has(option.value) }, option.label)),
    );
    return {
      element: h('div', { class: 'field' }, h('label', { for: id }, label), select, hint),
      read: () => (select.value === '' ? undefined : select.value),
    };
  }
  const numeric = field.type === 'number' || field.type === 'integer';
  const input = h('input', {
    id,
    name,
    type: numeric ? 'number' : (FORMAT_INPUTS[field.format ?? ''] ?? 'text'),
    step: field.type === 'integer' ? '1' : numeric ? 'any' : undefined,
    // The bounds the room checks the answer against, so that the browser says so first.
    min: numeric ? field.minimum : undefined,
    max: numeric ? field.maximum : undefined,
    minlength: numeric ? undefined : field.minLength,
    maxlength: numeric ? undefined : field.maxLength,
    required,
    autocomplete: 'off',
    value: typeof field.default === 'string' || typeof field.default === 'number' ? field.default : undefined,
    'aria-describedby': described,
  });
  return {
    element: h('div', { class: 'field' }, h('label', { for: id }, label), input, hint),
    read: () => (input.value === '' ? undefined : numeric ? Number(input.value) : input.value),
  };
}

/** An answer as the REST route takes it. */
type InputResponse = components['schemas']['InputResponse'];

/** The owner's answer to one input request: a form built from the request's schema. */
function answerForm(context: PageContext, handoff: Handoff, input: HandoffInput): HTMLElement {
  const schema = input.request.params.requestedSchema;
  const required = new Set(schema.required ?? []);
  // The handoff's id too: two handoffs may each ask under the same key, and a label must name its own field.
  const idBase = `answer-${handoff.handoff_id}-${input.key}`;
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
  const answer = (control: HTMLElement, response: InputResponse, said: string) =>
    context.act({
      said,
      control,
      status,
      run: () =>
        context.api.rest((room) =>
          room.POST('/workspace/task/input-responses', {
            body: { task_id: handoff.task_id, input_responses: { [input.key]: response } },
          }),
        ),
      changes: ['handoffs'],
      done: () => form.reset(),
    });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const content: NonNullable<InputResponse['content']> = {};
    for (const field of fields) {
      const value = field.read();
      if (value !== undefined) content[field.name] = value;
    }
    void answer(send, { action: 'accept', content }, `Answer sent: ${input.request.params.message}`);
  });
  decline.addEventListener(
    'click',
    () => void answer(decline, { action: 'decline' }, `Declined to answer: ${input.request.params.message}`),
  );
  return form;
}

export function inputItem(context: PageContext, handoff: Handoff, input: HandoffInput): HTMLElement {
  const asked = h('p', {}, h('strong', {}, `${input.requested_by} asks: `), input.request.params.message);
  if (input.response) {
    const { action, content } = input.response;
    const said =
      action === 'accept' ? 'answered' : action === 'decline' ? 'declined to answer' : 'cancelled the question';
    return h(
      'li',
      { class: 'input answered' },
      asked,
      h('p', { class: 'meta' }, `${input.answered_by ?? 'the owner'} ${said}`),
      content && Object.keys(content).length > 0
        ? fieldsView(content, input.request.params.requestedSchema.properties as Parameters<typeof fieldsView>[1])
        : null,
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
