// What the page lists of the room's handoffs and proposals. Whatever waits
// for a person is read whole, page by page: every open proposal, and every
// handoff not yet decided (open, accepted, result ready); a list cut at one
// page showed the newest hundred and left older work out, its group saying
// "none". Decided handoffs are the newest page's: the room keeps them all,
// and `ce handoffs --status` lists them.
import type { Handoff, HandoffStatus, Proposal } from '../generated/types.js';
import type { RoomApi } from './api.js';

/** One page of a list: the most the room gives at once. */
export const LIST_PAGE = 100;
/** Pages read of one list at most, so that a runaway room cannot keep the page reading. */
const MAX_PAGES = 50;

/** Every item of a list, following its cursor. */
async function everyPage<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let read = 0; read < MAX_PAGES; read++) {
    const { items: more, next } = await page(cursor);
    items.push(...more);
    if (next === null) break;
    cursor = next;
  }
  return items;
}

const UNDECIDED: HandoffStatus[] = ['open', 'accepted', 'result_ready'];

/** Every handoff not yet decided, and the newest page of all: newest first, each once. */
export async function readHandoffs(api: RoomApi): Promise<Handoff[]> {
  const page = (status: HandoffStatus | undefined, cursor: string | undefined) =>
    api
      .rest((room) =>
        room.GET('/workspace/handoffs', {
          params: { query: { limit: LIST_PAGE, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      )
      .then(({ handoffs, next_cursor }) => ({ items: handoffs, next: next_cursor }));
  const lists = await Promise.all([
    ...UNDECIDED.map((status) => everyPage((cursor) => page(status, cursor))),
    page(undefined, undefined).then(({ items }) => items),
  ]);
  const byId = new Map<string, Handoff>();
  for (const handoff of lists.flat()) byId.set(handoff.handoff_id, handoff);
  return [...byId.values()].sort((a, b) =>
    a.created_at === b.created_at ? b.handoff_id.localeCompare(a.handoff_id) : b.created_at.localeCompare(a.created_at),
  );
}

/** Every open proposal, newest first. */
export const readOpenProposals = (api: RoomApi): Promise<Proposal[]> =>
  everyPage((cursor) =>
    api
      .rest((room) =>
        room.GET('/workspace/proposals', { params: { query: { limit: LIST_PAGE, ...(cursor ? { cursor } : {}) } } }),
      )
      .then(({ proposals, next_cursor }) => ({ items: proposals, next: next_cursor })),
  );
