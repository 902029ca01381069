import { invalidField } from '../errors.js';

/** An opaque newest-first page cursor: the creation time and id of the last row given. */
export const encodeCursor = (row: { created_at: number; id: string }): string =>
  Buffer.from(`${row.created_at}:${row.id}`).toString('base64url');

/** What the ids of a paged list look like: a prefix, then base64url. */
const ID_TEXT = /^[a-z]{2}_[A-Za-z0-9_-]+$/;

/**
 * The place a cursor of one list stands for; refused unless this room could
 * have given it out for that list (`idPrefix`, the list's ids' `ho_` or
 * `pr_`): a cursor of another list, or one edited by hand, would start a page
 * somewhere no page ended, and the caller would never know.
 */
export function decodeCursor(cursor: string, idPrefix: string): { at: number; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString();
  const colon = text.indexOf(':');
  const at = text.slice(0, colon);
  const id = text.slice(colon + 1);
  const made =
    colon > 0 &&
    /^\d+$/.test(at) &&
    Number.isSafeInteger(Number(at)) &&
    ID_TEXT.test(id) &&
    id.startsWith(idPrefix) &&
    encodeCursor({ created_at: Number(at), id }) === cursor;
  if (!made) throw invalidField('cursor', 'is not a next_cursor this room gave out for this list');
  return { at: Number(at), id };
}

/**
 * Characters of large text (a proposal's content and diff, a handoff's
 * result) a page of a list holds before it ends early: with 500 proposals of
 * 512 KiB a page a read built half a gigabyte on the event loop, and the room
 * answered nothing else meanwhile. One row always fits, so a page is at most
 * this and one row; next_cursor goes on from its last row.
 */
export const PAGE_TEXT_BUDGET = 4 * 1024 * 1024;

/**
 * A newest-first page: `rows` as the store gave them (at most `limit` + 1,
 * the one past the page saying there is more), each turned into its item as
 * long as the page's text is under PAGE_TEXT_BUDGET (`textOf` counts an
 * item's), then the cursor after the last one kept.
 */
export function newestFirstPage<R extends { created_at: number; id: string }, V>(
  rows: R[],
  limit: number,
  item: (row: R) => V,
  textOf: (item: V, row: R) => number,
): { items: V[]; next_cursor: string | null } {
  const items: V[] = [];
  let text = 0;
  for (const row of rows.slice(0, limit)) {
    if (text >= PAGE_TEXT_BUDGET) break;
    const made = item(row);
    items.push(made);
    text += textOf(made, row);
  }
  const more = rows.length > items.length;
  return { items, next_cursor: more ? encodeCursor(rows[items.length - 1]!) : null };
}
