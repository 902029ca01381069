// ce handoffs, ce handoff, ce handoff-events: the local operator reading the
// room file, the same engine calls as handoff_get / handoff_events and
// GET /workspace/handoffs (design note, Deployment). The local operator sees
// handoffs, never tasks: a task is read as a participant (`ce task`).
import type { Command } from 'commander';
import type {
  CallToolResult,
  Handoff,
  HandoffEventsOutput,
  HandoffListOutput,
  HandoffTaskOutput,
} from '../../generated/types.js';
import { reading } from './open-room.js';
import { command, engineInput, FILE_ARGUMENT, wholeNumber } from './options.js';
import { answer, columns, fields, glimpse, orDash, type JsonOption } from './output.js';

interface ListOptions extends JsonOption {
  status?: string;
  limit?: number;
  cursor?: string;
}

interface EventsOptions extends JsonOption {
  after?: number;
  limit?: number;
}

const HANDOFF_ARGUMENT = ['<handoff_id>', 'the handoff (ho_...)'] as const;

export function handoffCommands(program: Command): void {
  command(program, 'handoffs', 'list handoffs, newest first')
    .argument(...FILE_ARGUMENT)
    .option('--status <status>', 'open, accepted, result_ready, approved, rejected or cancelled')
    .option('--limit <n>', 'at most this many (default 50)', wholeNumber('--limit'))
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed')
    .addHelpText('after', '\nExample:\n  $ ce handoffs notes.md --status open')
    .action(async (file: string, options: ListOptions) => {
      const result = await reading(file, (room, engine) =>
        engine.listHandoffs(
          room,
          engine.LOCAL_OPERATOR,
          engineInput({ status: options.status, limit: options.limit, cursor: options.cursor }),
        ),
      );
      answer(options, result, (page) => plainList(file, page));
    });

  command(program, 'handoff', 'show one handoff')
    .argument(...FILE_ARGUMENT)
    .argument(...HANDOFF_ARGUMENT)
    .addHelpText('after', '\nExample:\n  $ ce handoff notes.md ho_Xy3...')
    .action(async (file: string, handoffId: string, options: JsonOption) => {
      const result = await reading(file, (room, engine) =>
        engine.getHandoff(room, engine.LOCAL_OPERATOR, { handoff_id: handoffId }),
      );
      answer(options, result, (output) => plainHandoff(file, output));
    });

  command(program, 'handoff-events', "list a handoff's events, oldest first")
    .argument(...FILE_ARGUMENT)
    .argument(...HANDOFF_ARGUMENT)
    .option('--after <id>', 'only events after this event id (the "more" line of the previous page)', wholeNumber('--after'))
    .option('--limit <n>', 'at most this many (default 100)', wholeNumber('--limit'))
    .addHelpText('after', '\nExample:\n  $ ce handoff-events notes.md ho_Xy3... --after 12')
    .action(async (file: string, handoffId: string, options: EventsOptions) => {
      const result = await reading(file, (room, engine) =>
        engine.handoffEvents(
          room,
          engine.LOCAL_OPERATOR,
          engineInput({ handoff_id: handoffId, after: options.after, limit: options.limit }),
        ),
      );
      answer(options, result, (page) => plainEvents(file, handoffId, page));
    });
}

function plainList(file: string, { handoffs, next_cursor }: HandoffListOutput): string {
  if (handoffs.length === 0) return 'no handoffs';
  const table = columns(
    ['HANDOFF', 'STATUS', 'OWNER', 'ASSIGNEE', 'UPDATED', 'SUMMARY'],
    handoffs.map((h) => [h.handoff_id, h.status, h.owner, orDash(h.assignee), h.updated_at, glimpse(h.summary)]),
  );
  return next_cursor === null ? table : `${table}\n\nmore: ce handoffs ${file} --cursor ${next_cursor}`;
}

function plainHandoff(file: string, { handoff: h }: HandoffTaskOutput): string {
  return fields([
    ['handoff', h.handoff_id],
    ['status', h.status],
    ['summary', h.summary],
    ['constraints', h.constraints],
    ['owner', h.owner],
    ['assignee', h.assignee ?? 'anyone with write may accept'],
    ['task', `${h.task_id} (its owner or assignee reads it: ce task ${file} ${h.task_id} --participant NAME)`],
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
    ['inputs', h.inputs.map(input).join('\n')],
    ['result', h.result && resultText(h.result)],
    ['error', h.error && `${h.error.code} ${h.error.message}`],
    ['decision', h.decision && decision(h.decision)],
    ['correlation', h.correlation_id],
  ]);
}

const input = (i: Handoff['inputs'][number]): string =>
  `${i.key}: ${i.request.params.message} (asked by ${i.requested_by}; ${
    i.response ? `answered ${i.response.action} by ${i.answered_by}` : 'not answered'
  })`;

const decision = (d: NonNullable<Handoff['decision']>): string =>
  `${d.decision} by ${d.by} at ${d.at}${d.note ? `: ${d.note}` : ''}`;

/** Text blocks as text; other blocks by their type; structured content as JSON. */
export function resultText(result: CallToolResult): string {
  const blocks = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`));
  if (result.structuredContent !== undefined) blocks.push(`structured: ${JSON.stringify(result.structuredContent)}`);
  if (result.isError) blocks.unshift('(the tool reported an error)');
  return blocks.join('\n');
}

function plainEvents(file: string, handoffId: string, page: HandoffEventsOutput): string {
  const lines: string[] = [];
  if (page.gap) {
    lines.push(
      `gap: some events of this handoff have left the room's event ring; read the handoff itself (ce handoff ${file} ${handoffId})`,
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
  if (page.has_more) lines.push('', `more: ce handoff-events ${file} ${handoffId} --after ${page.next_after}`);
  return lines.join('\n');
}
