// Approving a proposal whose base is older than the current revision: its
// change merged onto the current text (merge.ts), or refused, naming the
// lines, where both changed the same ones.
import type { ProposalRow } from '../../store/rows.js';
import { DomainError } from '../../errors.js';
import type { Room } from '../room.js';
import { linesSaid } from '../../line-range.js';
import { mergeThreeWay } from './merge.js';

/**
 * The proposal's change merged onto `current`, a later revision than its
 * base. Overlapping changes are a conflict naming the lines; a change the
 * current revision already holds would write nothing new, and is refused too.
 */
export function mergeOnto(room: Room, row: ProposalRow, currentNumber: number, currentText: string): string {
  const base = room.workspace.getRevision(row.base_revision)!;
  const stale = `proposal ${row.id} is based on revision ${row.base_revision}, but the artifact is at revision ${currentNumber}`;
  const where = { base_revision: row.base_revision, current_revision: currentNumber };
  // A proposal is made only against a revision that is text (proposeChange), so its base is.
  const merge = mergeThreeWay(base.content as string, currentText, row.content);
  if (merge.text === null) {
    const said = merge.conflicts
      .slice(0, 5)
      .map(
        (c) =>
          `${linesSaid(c.base)} of revision ${row.base_revision}, ${linesSaid(c.current)} in revision ${currentNumber} and ${linesSaid(c.proposal)} in the proposal`,
      );
    const more = merge.conflicts.length > 5 ? `, and ${merge.conflicts.length - 5} more` : '';
    throw new DomainError(
      'conflict',
      `${stale}, and both change the same or adjacent lines: ${said.join('; ')}${more}. Nothing was written; propose again from revision ${currentNumber}`,
      { ...where, conflicts: merge.conflicts },
    );
  }
  if (merge.text === currentText) {
    throw new DomainError(
      'conflict',
      `${stale}, which already holds its changes: approving it would write nothing new`,
      where,
    );
  }
  return merge.text;
}
