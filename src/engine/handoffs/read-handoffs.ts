import type { InputOf } from '../../../generated/operations.js';
import type {
  Caller,
  DetailedTask,
  HandoffEventsOutput,
  HandoffListOutput,
  HandoffTaskOutput,
} from '../../../generated/types.js';
import type { HandoffRow } from '../../store/rows.js';
import { LOCAL_OPERATOR, type Actor } from '../access.js';
import { decodeCursor, newestFirstPage } from '../cursor.js';
import { DomainError } from '../../errors.js';
import { canSeeTask, handoffView, taskView, type Room } from '../room.js';
import { toEvent } from '../row-mapping.js';
import { loadHandoff, loadVisibleTask } from './load.js';

/** tasks/get: the DetailedTask, for its owner or assignee only. */
export function getTask(room: Room, caller: Caller, args: InputOf<'getTask'>): DetailedTask {
  return taskView(room, loadVisibleTask(room, caller, args.task_id));
}

/**
 * handoff_get: any reader sees the handoff; the task only its owner or
 * assignee. The local operator reads the handoff without its task: a task
 * is read as a participant (`ce task --participant`).
 */
export function getHandoff(room: Room, actor: Actor, args: InputOf<'getHandoff'>): HandoffTaskOutput {
  let handoff: HandoffRow;
  // The schema holds exactly one of the two.
  if (args.handoff_id !== undefined) {
    handoff = loadHandoff(room, args.handoff_id);
  } else {
    const found = room.store.getHandoffByTask(args.task_id!);
    if (!found) throw new DomainError('not_found', `no handoff has task ${args.task_id}`);
    handoff = found;
  }
  const task = room.store.getTask(handoff.task_id);
  const visible = task && actor !== LOCAL_OPERATOR && canSeeTask(actor, task);
  return { handoff: handoffView(room, handoff), task: visible ? taskView(room, task) : null };
}

/**
 * handoff_events: the handoff's events after a cursor, oldest first. `gap`
 * says that some of them already left the ring; next_after steps past them,
 * so a client that follows it is told of the gap once, where a handoff with
 * no newer event told it again at every poll.
 */
export function listHandoffEvents(room: Room, actor: Actor, args: InputOf<'listHandoffEvents'>): HandoffEventsOutput {
  const handoff = loadHandoff(room, args.handoff_id);
  const rows = room.store.listHandoffEvents(handoff.id, args.after, args.limit + 1);
  const page = rows.slice(0, args.limit);
  return {
    events: page.map(toEvent),
    next_after: page.length > 0 ? page[page.length - 1]!.id : Math.max(args.after, handoff.events_pruned_through),
    has_more: rows.length > args.limit,
    gap: handoff.events_pruned_through > args.after,
  };
}

/** A handoff's large texts, as its row holds them: what counts toward a page's PAGE_TEXT_BUDGET. */
const textOfHandoff = (_view: unknown, row: HandoffRow): number =>
  row.summary.length +
  (row.constraints?.length ?? 0) +
  row.artifacts_json.length +
  (row.result_json?.length ?? 0) +
  (row.error_json?.length ?? 0) +
  (row.decision_json?.length ?? 0) +
  (row.progress_json?.length ?? 0);

/** Handoffs, newest first, a page at a time; a page ends early past PAGE_TEXT_BUDGET. */
export function listHandoffs(room: Room, actor: Actor, args: InputOf<'listHandoffs'>): HandoffListOutput {
  const before = args.cursor === undefined ? null : decodeCursor(args.cursor, 'ho_');
  const rows = room.store.listHandoffs({
    status: args.status ?? null,
    before_at: before?.at ?? null,
    before_id: before?.id ?? null,
    limit: args.limit + 1,
  });
  const page = newestFirstPage(rows, args.limit, (row) => handoffView(room, row), textOfHandoff);
  return { handoffs: page.items, next_cursor: page.next_cursor };
}
