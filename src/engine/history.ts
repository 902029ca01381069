import type { InputOf } from '../../generated/operations.js';
import type { HistoryEntry, Revision, WorkspaceHistoryOutput } from '../../generated/types.js';
import type { HistoryRow, RevisionRow } from '../store/rows.js';
import { invalidField } from '../errors.js';
import { type Actor } from './access.js';
import { toTimestamp } from './clock.js';
import type { Room } from './room.js';

export const toRevision = (row: RevisionRow): Revision => ({
  number: row.number,
  hash: row.hash,
  size: row.size,
  source: row.source,
  author: row.author,
  approver: row.approver,
  proposal_id: row.proposal_id,
  at: toTimestamp(row.at),
  utf8: typeof row.content === 'string',
  ...(row.merged_base === null ? {} : { merged_base: row.merged_base }),
});

/** Appends to the room's history; called inside the change it records. */
export function appendHistory(
  room: Room,
  entry: Pick<HistoryRow, 'kind' | 'at' | 'actor'> &
    Partial<Pick<HistoryRow, 'revision' | 'proposal_id' | 'handoff_id' | 'note'>>,
): void {
  room.workspace.insertHistory({
    revision: null,
    proposal_id: null,
    handoff_id: null,
    note: null,
    ...entry,
  });
}

function toHistoryEntry(room: Room, row: HistoryRow): HistoryEntry {
  const revision = row.revision === null ? undefined : room.workspace.getRevision(row.revision);
  return {
    id: row.id,
    at: toTimestamp(row.at),
    kind: row.kind,
    actor: row.actor,
    revision: revision ? toRevision(revision) : null,
    proposal_id: row.proposal_id,
    handoff_id: row.handoff_id,
    note: row.note,
  };
}

/**
 * workspace_history: revisions and decisions, oldest first after a cursor,
 * or latest first before one (`before`, 0 for the latest: a person's view,
 * what happened lately). next_after is always the page's newest entry, so a
 * client that read the latest page can follow what comes after it.
 */
export function listHistory(room: Room, actor: Actor, args: InputOf<'listHistory'>): WorkspaceHistoryOutput {
  if (args.before === undefined) {
    const rows = room.workspace.listHistory(args.after, args.limit + 1);
    const page = rows.slice(0, args.limit);
    return {
      entries: page.map((row) => toHistoryEntry(room, row)),
      next_after: page.length > 0 ? page[page.length - 1]!.id : args.after,
      has_more: rows.length > args.limit,
    };
  }
  if (args.after !== 0) throw invalidField('before', 'pages latest first, after oldest first: give one of them');
  const rows = room.workspace.listHistoryBefore(args.before || Number.MAX_SAFE_INTEGER, args.limit + 1);
  const page = rows.slice(0, args.limit);
  const entries = page.map((row) => toHistoryEntry(room, row));
  if (page.length === 0) return { entries, next_after: Math.max(args.before - 1, 0), has_more: false };
  return {
    entries,
    next_after: page[0]!.id,
    next_before: page[page.length - 1]!.id,
    has_more: rows.length > args.limit,
  };
}
