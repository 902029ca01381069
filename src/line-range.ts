// A range of a text's lines as a person reads it, the same in the room's
// refusals and in ce's output.
import type { LineRange } from '../generated/types.js';

/** `line 3`, `lines 3–5`, `after line 2` (nothing there: an insertion point). */
export function linesSaid({ start, count }: LineRange): string {
  if (count === 0) return start === 1 ? 'at the start' : `after line ${start - 1}`;
  return count === 1 ? `line ${start}` : `lines ${start}–${start + count - 1}`;
}
