// Plain answers of the handoff and task commands, for people. --json prints
// the operation's output object instead.
import type {
  CallToolResult,
  DetailedTask,
  Handoff,
  HandoffCompleteOutput,
  HandoffAnswerOutput,
  HandoffCreateOutput,
  HandoffEventsOutput,
  HandoffListOutput,
  HandoffOutput,
  HandoffProgressOutput,
  HandoffRequestInputOutput,
  HandoffTaskOutput,
  TaskCancelOutput,
  TaskUpdateOutput,
} from '../../../generated/types.js';
import { columns, fields, glimpse, orDash } from '../output.js';
import type { RenderContext } from './context.js';

export function handoffList({ handoffs, next_cursor }: HandoffListOutput, context: RenderContext): string {
  if (handoffs.length === 0) return 'no handoffs';
  const table = columns(
    ['HANDOFF', 'STATUS', 'OWNER', 'ASSIGNEE', 'UPDATED', 'SUMMARY'],
    handoffs.map((h) => [h.handoff_id, h.status, h.owner, orDash(h.assignee), h.updated_at, glimpse(h.summary)]),
  );
  return next_cursor === null ? table : `${table}\n\nmore: ${context.more({ '--cursor': next_cursor })}`;
}

/** A handoff, and its task when the reader may see it. */
export function handoffFields(h: Handoff, task: DetailedTask | null, { room }: RenderContext): string {
  return fields([
    ['handoff', h.handoff_id],
    ['status', h.status],
    ['summary', h.summary],
    ['constraints', h.constraints],
    ['owner', h.owner],
    ['assignee', h.assignee ?? 'anyone with write may accept'],
    [
      'task',
      task
        ? `${h.task_id} (${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''})`
        : `${h.task_id} (its owner or assignee reads it: ce task ${room} ${h.task_id} --participant NAME)`,
    ],
    [
      'artifacts',
      h.artifacts
        .map((a) => [a.uri, a.title, a.revision && `revision ${a.revision}`].filter(Boolean).join('  '))
        .join('\n'),
    ],
    ['created', h.created_at],
    ['updated', h.updated_at],
    ['accepted', h.accepted_at],
    ['completed', h.completed_at],
    ['cancelled', h.cancelled_at],
    ['inputs', h.inputs.map((i) => input(i, h, room)).join('\n')],
    ['result', h.result && resultText(h.result)],
    ['error', h.error && `${h.error.code} ${h.error.message}`],
    ['decision', h.decision && decision(h.decision)],
    [
      'progress',
      h.progress &&
        `${h.progress.message}${h.progress.progress === undefined ? '' : ` (${h.progress.progress}${h.progress.total === undefined ? '' : ` of ${h.progress.total}`})`} by ${h.progress.by} at ${h.progress.at}`,
    ],
    ['correlation', h.correlation_id],
  ]);
}

/** A value of an answer's content, as text. */
const valueText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

type Form = Handoff['inputs'][number]['request']['params']['requestedSchema'];

/** The values a field offers, as its `enum` or its titled choices' `const` list them; null when it offers none. */
function choicesOf(field: Record<string, unknown> | undefined): string[] | null {
  const listed = field?.enum ?? (field?.oneOf as { const?: unknown }[] | undefined)?.map((option) => option.const);
  const titled = (field?.anyOf as { const?: unknown }[] | undefined)?.map((option) => option.const);
  const values = listed ?? titled;
  return Array.isArray(values) ? values.map(String) : null;
}

/** The form's fields, a line each: `n (integer, required): How many`; null for the one-field answer form --answer fills in. */
function formFields(form: Form): string[] | null {
  const names = Object.keys(form.properties);
  if (names.length === 1 && names[0] === 'answer' && form.properties.answer?.type === 'string') return null;
  const required = new Set(form.required ?? []);
  return Object.entries(form.properties).map(([name, field]) => {
    const choices = choicesOf(field!.type === 'array' ? (field!.items as Record<string, unknown> | undefined) : field);
    const kind = [
      field!.type,
      ...(choices ? [`${field!.type === 'array' ? 'of' : 'one of'} ${choices.join(', ')}`] : []),
      ...(required.has(name) ? ['required'] : []),
    ].join(', ');
    const said = typeof field!.title === 'string' ? `: ${field!.title}` : '';
    return `  field ${name} (${kind})${said}`;
  });
}

/** One question, its answer's fields as `name: value`, or how its owner answers it (and the form's fields). */
function input(i: Handoff['inputs'][number], h: Handoff, room: string): string {
  const asked = `${i.key}: ${i.request.params.message} (asked by ${i.requested_by}; `;
  if (!i.response) {
    const fields = formFields(i.request.params.requestedSchema);
    const given = fields ? '--content-file FILE.json' : '--answer TEXT';
    const how = `  answer: ce handoff-answer ${room} ${h.handoff_id} --key ${i.key} ${given} --participant ${h.owner}`;
    return [`${asked}not answered)`, ...(fields ?? []), how].join('\n');
  }
  const how = { accept: 'answered', decline: 'declined', cancel: 'cancelled' }[i.response.action];
  const content = Object.entries(i.response.content ?? {}).map(([name, value]) => `  ${name}: ${valueText(value)}`);
  return [`${asked}${how} by ${i.answered_by})`, ...content].join('\n');
}

const decision = (d: NonNullable<Handoff['decision']>): string =>
  `${d.decision} by ${d.by} at ${d.at}${d.note ? `: ${d.note}` : ''}`;

/** Text blocks as text; other blocks by their type; structured content as JSON. */
export function resultText(result: CallToolResult): string {
  const blocks = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`));
  if (result.structuredContent !== undefined) blocks.push(`structured: ${JSON.stringify(result.structuredContent)}`);
  if (result.isError) blocks.unshift('(the tool reported an error)');
  return blocks.join('\n');
}

const headed = (headline: string, body: string): string => `${headline}\n\n${body}`;

export const handoffTask = ({ handoff, task }: HandoffTaskOutput, context: RenderContext): string =>
  handoffFields(handoff, task, context);

export const handoffCreated = ({ handoff, task, replayed }: HandoffCreateOutput, context: RenderContext): string =>
  headed(
    replayed
      ? `handoff ${handoff.handoff_id} was already created with this idempotency key; nothing new was made`
      : `created handoff ${handoff.handoff_id}${handoff.assignee ? ` for ${handoff.assignee}` : ''}`,
    handoffFields(handoff, task, context),
  );

export const handoffAccepted = (output: HandoffTaskOutput, context: RenderContext): string =>
  headed(`accepted handoff ${output.handoff.handoff_id}; its task is working`, handoffTask(output, context));

export const handoffAnswered = ({ handoff, task, key }: HandoffAnswerOutput, context: RenderContext): string =>
  headed(
    `answered ${key}${task.status === 'working' ? '; the task works again' : '; other questions are still open'}`,
    handoffFields(handoff, task, context),
  );

export const inputRequested = ({ handoff, task, key }: HandoffRequestInputOutput, context: RenderContext): string =>
  headed(
    `asked ${handoff.owner} for input (key ${key}); the task waits until the owner answers`,
    handoffFields(handoff, task, context),
  );

export const handoffCompleted = (
  { handoff, task, already_completed }: HandoffCompleteOutput,
  context: RenderContext,
): string =>
  headed(
    already_completed
      ? `handoff ${handoff.handoff_id} was already completed; it keeps its first outcome`
      : handoff.status === 'result_ready'
        ? `completed handoff ${handoff.handoff_id}: its result is ready for an approver`
        : `completed handoff ${handoff.handoff_id} with an error: it is cancelled`,
    handoffFields(handoff, task, context),
  );

export function progressReported({ handoff, committed }: HandoffProgressOutput): string {
  const p = handoff.progress!;
  const numbers = p.progress === undefined ? '' : ` (${p.progress}${p.total === undefined ? '' : ` of ${p.total}`})`;
  const when = committed
    ? ''
    : "; it waits for the task's next commit, within a second, unless a newer report replaces it";
  return `reported progress on handoff ${handoff.handoff_id}: ${p.message}${numbers}${when}`;
}

export const handoffDecided = ({ handoff }: HandoffOutput, context: RenderContext): string =>
  headed(`${handoff.status} handoff ${handoff.handoff_id}`, handoffFields(handoff, null, context));

export function listHandoffEvents(page: HandoffEventsOutput, context: RenderContext): string {
  const lines: string[] = [];
  if (page.gap) {
    lines.push(
      `gap: some events of this handoff have left the room's event ring; read the handoff itself (ce handoff ${context.room} ${String(context.input.handoff_id)})`,
    );
  }
  lines.push(
    page.events.length === 0
      ? 'no events'
      : columns(
          ['EVENT', 'AT', 'TYPE', 'ACTOR', 'PAYLOAD'],
          page.events.map((e) => [String(e.id), e.at, e.type, orDash(e.actor), JSON.stringify(e.payload)]),
        ),
  );
  if (page.has_more) lines.push('', `more: ${context.more({ '--after': page.next_after })}`);
  return lines.join('\n');
}

export function taskFields(task: DetailedTask): string {
  const pairs: [string, string | number | null | undefined][] = [
    ['task', task.taskId],
    ['status', task.status],
    ['message', task.statusMessage],
    ['created', task.createdAt],
    ['updated', task.lastUpdatedAt],
    ['ttl', `${task.ttlMs / 1000} s`],
    ['poll', `${task.pollIntervalMs / 1000} s`],
  ];
  if (task.status === 'input_required') {
    // Each request, and the fields of a form of its own (ce task-answer --content-file fills them in).
    const requests = Object.entries(task.inputRequests).map(([key, request]) =>
      [`${key}: ${request!.params.message}`, ...(formFields(request!.params.requestedSchema) ?? [])].join('\n'),
    );
    pairs.push(['input requests', requests.join('\n')]);
  }
  if (task.status === 'completed') pairs.push(['result', resultText(task.result)]);
  if (task.status === 'failed') pairs.push(['error', `${task.error.code} ${task.error.message}`]);
  return fields(pairs);
}

export const taskAnswered = ({ task, answered }: TaskUpdateOutput): string =>
  `answered ${answered.join(', ')}; task ${task.taskId} is ${task.status}`;

export const taskCancelled = ({ task, cancelled }: TaskCancelOutput): string =>
  cancelled ? `cancelled task ${task.taskId}` : `task ${task.taskId} was already ${task.status}; it stays as it was`;
