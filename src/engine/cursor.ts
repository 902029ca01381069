import { invalidField } from '../errors.js';

/** An opaque newest-first page cursor: the creation time and id of the last row given. */
export const encodeCursor = (row: { created_at: number; id: string }): string =>
  Buffer.from(`${row.created_at}:${row.id}`).toString('base64url');

export function decodeCursor(cursor: string): { at: number; id: string } {
  const [at, ...id] = Buffer.from(cursor, 'base64url').toString().split(':');
  const ms = Number(at);
  if (!Number.isSafeInteger(ms) || id.length === 0) {
    throw invalidField('cursor', 'is not a next_cursor this room gave out');
  }
  return { at: ms, id: id.join(':') };
}
