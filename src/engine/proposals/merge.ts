// Three-way merge of a proposal onto a revision later than its base, line by
// line, as `git merge-file` and diff3 do (node-diff3): changes to different
// lines both land; changes to the same or adjacent lines are a conflict,
// unless both sides made the same change.
import { diffArrays } from 'diff';
import { diff3Merge } from 'node-diff3';
import type { MergeConflict } from '../../../generated/types.js';
import { rememberLines, rememberPer } from './merge-memory.js';

export type Merge = { text: string; conflicts: [] } | { text: null; conflicts: MergeConflict[] };

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

/** Base line `i` and the one before it are kept, next to each other, by the side. */
const keptWithPrevious = (i: number, at: Int32Array) => at[i]! >= 0 && at[i - 1]! >= 0 && at[i] === at[i - 1]! + 1;

/**
 * Base lines before which the texts can be cut apart and merged piece by
 * piece: both sides keep the two lines on each side of the cut, next to each
 * other, so no change on one side of it touches a change on the other. One
 * cut a stretch of such lines: the pieces are the changed places.
 */
function cutsOf(length: number, inA: Int32Array, inB: Int32Array): number[] {
  const together = (i: number) => keptWithPrevious(i, inA) && keptWithPrevious(i, inB);
  const cuts: number[] = [];
  let armed = true;
  for (let c = 2; c + 1 < length; c++) {
    if (!(together(c - 1) && together(c) && together(c + 1))) armed = true;
    else if (armed) {
      cuts.push(c);
      armed = false;
    }
  }
  return cuts;
}

/** Lines of one text, as a run: its [from, to) in `lines`. */
interface Span {
  from: number;
  to: number;
}

/** The merged text, built as runs of lines: a long unchanged run is one slice of the current text, never copied line by line. */
class MergedText {
  private readonly parts: string[] = [];
  /** Where each line of the current text starts in it (one more for its end). */
  private readonly starts: Int32Array;

  constructor(
    private readonly current: string,
    lines: string[],
  ) {
    this.starts = new Int32Array(lines.length + 1);
    for (let i = 0; i < lines.length; i++) this.starts[i + 1] = this.starts[i]! + lines[i]!.length + 1;
  }

  /** Lines [from, to) of the current text. */
  currentLines({ from, to }: Span): void {
    if (to > from) this.parts.push(this.current.slice(this.starts[from], this.starts[to]! - 1));
  }

  lines(lines: string[]): void {
    if (lines.length > 0) this.parts.push(lines.join('\n'));
  }

  text(): string {
    return this.parts.join('\n');
  }
}

/**
 * One piece (base lines `o`, and where the current text and the proposal
 * have it, `a` and `b`), merged onto `merged`, its conflicts pushed to
 * `conflicts`. The lines the three share at the piece's start and end (kept
 * by both sides, by the diffs) are taken from the current text as they are;
 * node-diff3 sees only the changed place between them.
 */
function mergePiece(
  texts: { o: string[]; a: string[]; b: string[]; inA: Int32Array | null; inB: Int32Array | null },
  piece: { o: Span; a: Span; b: Span },
  merged: MergedText,
  conflicts: MergeConflict[],
): void {
  const { o, a, b, inA, inB } = texts;
  const same = (k: number, base: number, at: number, bt: number) =>
    inA !== null && inB !== null && inA[base + k] === at + k && inB[base + k] === bt + k;
  const most = Math.min(piece.o.to - piece.o.from, piece.a.to - piece.a.from, piece.b.to - piece.b.from);
  let head = 0;
  while (head < most && same(head, piece.o.from, piece.a.from, piece.b.from)) head++;
  let tail = 0;
  const back = (span: Span) => span.to - 1;
  while (tail < most - head && same(-tail, back(piece.o), back(piece.a), back(piece.b))) tail++;
  const middle = (lines: string[], span: Span) => lines.slice(span.from + head, span.to - tail);
  merged.currentLines({ from: piece.a.from, to: piece.a.from + head });
  for (const region of diff3Merge(middle(a, piece.a), middle(o, piece.o), middle(b, piece.b), {
    excludeFalseConflicts: true,
  })) {
    if (region.ok) {
      merged.lines(region.ok);
      continue;
    }
    const { a: ours, aIndex, o: before, oIndex, b: theirs, bIndex } = region.conflict!;
    conflicts.push({
      base: { start: piece.o.from + head + oIndex + 1, count: before.length },
      current: { start: piece.a.from + head + aIndex + 1, count: ours.length },
      proposal: { start: piece.b.from + head + bIndex + 1, count: theirs.length },
    });
  }
  merged.currentLines({ from: piece.a.to - tail, to: piece.a.to });
}

/**
 * Merges piece by piece: the texts are cut where neither side changed
 * anything for a few lines, and each piece is merged on its own (node-diff3's
 * cost grows with the square of the lines it compares, a Myers diff's with
 * the lines times the changes). Into `merged` when given; the conflicts are
 * returned.
 */
function mergePieces(base: string, current: string, proposal: string, merged: MergedText): MergeConflict[] {
  const [o, a, b] = [rememberLines(base), rememberLines(current), rememberLines(proposal)];
  const inA = rememberPer(o, a, keptIn);
  const inB = inA && rememberPer(o, b, keptIn);
  const cuts = inA && inB ? cutsOf(o.length, inA, inB) : [];
  const bounds = [0, ...cuts, o.length];
  const conflicts: MergeConflict[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const [from, to] = [bounds[k]!, bounds[k + 1]!];
    const side = (lines: string[], at: Int32Array | null): Span => ({
      from: from === 0 ? 0 : at![from]!,
      to: to === o.length ? lines.length : at![to]!,
    });
    mergePiece({ o, a, b, inA, inB }, { o: { from, to }, a: side(a, inA), b: side(b, inB) }, merged, conflicts);
  }
  return conflicts;
}

/**
 * `proposal` (made against `base`) merged onto `current`. A text's lines and
 * a diff of two texts are remembered (merge-memory.ts): when a revision
 * lands, the room works out every open proposal against it
 * (mergeable.ts), and the approval that follows finds both diffs done.
 */
export function mergeThreeWay(base: string, current: string, proposal: string): Merge {
  const merged = new MergedText(current, rememberLines(current));
  const conflicts = mergePieces(base, current, proposal, merged);
  return conflicts.length > 0 ? { text: null, conflicts } : { text: merged.text(), conflicts: [] };
}
