// Three-way merge of a proposal onto a revision later than its base, line by
// line, as `git merge-file` and diff3 do (node-diff3): changes to different
// lines both land; changes to the same or adjacent lines are a conflict,
// unless both sides made the same change.
import { diffArrays } from 'diff';
import { diff3Merge } from 'node-diff3';
import type { MergeConflict } from '../../../generated/types.js';

export type Merge = { text: string; conflicts: [] } | { text: null; conflicts: MergeConflict[] };

/** A text's lines, the last without its line end: joined with '\n' they are the text again. */
const linesOf = (text: string): string[] => text.split('\n');

/** Changes past which finding where to cut costs more than it saves: the texts are merged whole. */
const MAX_EDITS_TO_CUT = 2_000;

/**
 * Where `side` has each base line when it keeps it, -1 where it does not
 * (jsdiff's Myers diff, fast when the changes are few); null when the texts
 * differ by more than MAX_EDITS_TO_CUT lines.
 */
function keptIn(o: string[], side: string[]): Int32Array | null {
  const parts = diffArrays(o, side, { maxEditLength: MAX_EDITS_TO_CUT });
  if (!parts) return null;
  const at = new Int32Array(o.length).fill(-1);
  let [i, j] = [0, 0];
  for (const part of parts) {
    const n = part.count ?? part.value.length;
    if (part.added) j += n;
    else if (part.removed) i += n;
    else {
      for (let k = 0; k < n; k++) at[i + k] = j + k;
      [i, j] = [i + n, j + n];
    }
  }
  return at;
}

/**
 * Base lines before which the texts can be cut apart and merged piece by
 * piece: both sides keep the two lines on each side of the cut, next to each
 * other, so no change on one side of it touches a change on the other. One
 * cut a stretch of such lines: the pieces are the changed places.
 */
function cutsOf(o: string[], inA: Int32Array, inB: Int32Array): number[] {
  const kept = (i: number, at: Int32Array) => at[i]! >= 0 && at[i - 1]! >= 0 && at[i] === at[i - 1]! + 1;
  const together = (i: number) => kept(i, inA) && kept(i, inB);
  const cuts: number[] = [];
  let armed = true;
  for (let c = 2; c + 1 < o.length; c++) {
    if (!(together(c - 1) && together(c) && together(c + 1))) armed = true;
    else if (armed) {
      cuts.push(c);
      armed = false;
    }
  }
  return cuts;
}

/** How many lines the three share at the start (`from: 'start'`) or the end, apart from the first `skip`. */
function shared(o: string[], a: string[], b: string[], from: 'start' | 'end', skip = 0): number {
  const most = Math.min(o.length, a.length, b.length) - skip;
  let n = 0;
  const at = (lines: string[]) => (from === 'start' ? lines[n] : lines[lines.length - 1 - n]);
  while (n < most && at(o) === at(a) && at(o) === at(b)) n++;
  return n;
}

/** One piece, merged by node-diff3 into `merged`, its conflicts (at the piece's `offset` in each text) into `conflicts`. */
function mergePiece(
  [o, a, b]: [string[], string[], string[]],
  offset: { o: number; a: number; b: number },
  merged: string[],
  conflicts: MergeConflict[],
): void {
  // Lines all three share at the piece's start and end are set aside: the diff3 sees only where the changes are.
  const head = shared(o, a, b, 'start');
  const tail = shared(o, a, b, 'end', head);
  const middle = (lines: string[]) => lines.slice(head, lines.length - tail);
  for (const line of o.slice(0, head)) merged.push(line);
  for (const region of diff3Merge(middle(a), middle(o), middle(b), { excludeFalseConflicts: true })) {
    if (region.ok) {
      for (const line of region.ok) merged.push(line);
      continue;
    }
    const { a: ours, aIndex, o: before, oIndex, b: theirs, bIndex } = region.conflict!;
    conflicts.push({
      base: { start: offset.o + head + oIndex + 1, count: before.length },
      current: { start: offset.a + head + aIndex + 1, count: ours.length },
      proposal: { start: offset.b + head + bIndex + 1, count: theirs.length },
    });
  }
  for (const line of o.slice(o.length - tail)) merged.push(line);
}

/**
 * `proposal` (made against `base`) merged onto `current`. The texts are cut
 * where neither side changed anything for a few lines, and each piece is
 * merged on its own: node-diff3's cost grows with the square of the lines it
 * compares, a Myers diff's with the lines times the changes.
 */
export function mergeThreeWay(base: string, current: string, proposal: string): Merge {
  const [o, a, b] = [linesOf(base), linesOf(current), linesOf(proposal)];
  const inA = keptIn(o, a);
  const inB = inA && keptIn(o, b);
  const cuts = inA && inB ? cutsOf(o, inA, inB) : [];
  const bounds = [0, ...cuts, o.length];
  const merged: string[] = [];
  const conflicts: MergeConflict[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const [from, to] = [bounds[k]!, bounds[k + 1]!];
    const aFrom = from === 0 ? 0 : inA![from]!;
    const aTo = to === o.length ? a.length : inA![to]!;
    const bFrom = from === 0 ? 0 : inB![from]!;
    const bTo = to === o.length ? b.length : inB![to]!;
    const piece: [string[], string[], string[]] = [o.slice(from, to), a.slice(aFrom, aTo), b.slice(bFrom, bTo)];
    mergePiece(piece, { o: from, a: aFrom, b: bFrom }, merged, conflicts);
  }
  return conflicts.length > 0 ? { text: null, conflicts } : { text: merged.join('\n'), conflicts: [] };
}
