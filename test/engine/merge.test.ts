// Changing the file together (PRODUCT.md §2): a proposal based on an older
// revision is merged onto the current one, three-way by lines. Changes to
// different lines all land, whatever the order of approval; changes to the
// same lines are a conflict that names them and writes nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { mergeThreeWay } from '../../src/engine/proposals/merge.js';
import {
  approveProposal,
  getProposal,
  listHistory,
  proposeChange,
  readArtifact,
  syncArtifact,
  type Room,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';
import { seededRandom } from '../helpers/seeded-random.js';

const approver = caller('dave', ['read', 'approve']);
let t: TestRoom | undefined;
afterEach(() => {
  t?.close();
  t = undefined;
});

/** A room whose file is `lines` sections of three lines each: a heading, a sentence, a blank line. */
function roomOf(sections: number): { room: Room; text: string } {
  t = makeRoom([...Array.from({ length: 20 }, (_, i) => `agent${i}`), 'dave']);
  const text = Array.from({ length: sections }, (_, i) => `## Section ${i}\nThe text of section ${i}.\n`).join('\n');
  writeFileSync(t.artifact, text);
  syncArtifact(t.room);
  return { room: t.room, text };
}

describe.each([2, 5, 20])('%i agents edit different sections of revision 1', (agents) => {
  test.each([0, 1, 2])('all are approved in any order (order %i), and the file holds every change', (seed) => {
    const { room, text } = roomOf(agents);
    const base = readArtifact(room, approver).revision.number;
    const ids = Array.from({ length: agents }, (_, i) => {
      const content = text.replace(`The text of section ${i}.`, `Section ${i}, rewritten by agent${i}.`);
      return proposeChange(room, caller(`agent${i}`), { base_revision: base, content, summary: `section ${i}` })
        .proposal.proposal_id;
    });
    const random = seededRandom(seed + agents);
    const order = [...ids].sort(() => random() - 0.5);
    for (const id of order) approveProposal(room, approver, { proposal_id: id });

    let expected = text;
    for (let i = 0; i < agents; i++) {
      expected = expected.replace(`The text of section ${i}.`, `Section ${i}, rewritten by agent${i}.`);
    }
    expect(readFileSync(t!.artifact, 'utf8')).toBe(expected);
    expect(readArtifact(room, approver)).toMatchObject({ content: expected, revision: { number: base + agents } });
    // The first lands on its base; each later one records the base it was made against, merged.
    const revisions = listHistory(room, approver, {})
      .entries.filter((entry) => entry.kind === 'revision' && entry.revision!.source === 'proposal')
      .map((entry) => entry.revision!);
    expect(revisions.map((revision) => revision.merged_base ?? null)).toEqual([
      null,
      ...Array.from({ length: agents - 1 }, () => base),
    ]);
    for (const id of ids) expect(getProposal(room, approver, { proposal_id: id }).proposal.status).toBe('accepted');
  });
});

describe('changes to the same lines', () => {
  test('are a conflict naming the lines of each side, and the file and the proposal stay as they were', () => {
    const { room, text } = roomOf(3);
    const ours = text.replace('The text of section 1.', 'Ours.').replace('## Section 2', '## Second section');
    const theirs = text.replace('The text of section 1.', 'Theirs,\nin two lines.');
    const first = proposeChange(room, caller('agent0'), { base_revision: 1, content: ours, summary: 'ours' });
    const second = proposeChange(room, caller('agent1'), { base_revision: 1, content: theirs, summary: 'theirs' });
    approveProposal(room, approver, { proposal_id: first.proposal.proposal_id });
    const error = expectRefused(
      room,
      () => approveProposal(room, approver, { proposal_id: second.proposal.proposal_id }),
      'conflict',
      `proposal ${second.proposal.proposal_id} is based on revision 1, but the artifact is at revision 2, and both change the same or adjacent lines: line 5 of revision 1, line 5 in revision 2 and lines 5–6 in the proposal. Nothing was written; propose again from revision 2`,
    );
    expect(error.details).toEqual({
      base_revision: 1,
      current_revision: 2,
      conflicts: [{ base: { start: 5, count: 1 }, current: { start: 5, count: 1 }, proposal: { start: 5, count: 2 } }],
    });
    expect(readFileSync(t!.artifact, 'utf8')).toBe(ours);
  });

  test('the same change made on both sides is no conflict, but approving what is already there is refused', () => {
    const { room, text } = roomOf(2);
    const same = text.replace('The text of section 0.', 'Agreed.');
    const first = proposeChange(room, caller('agent0'), { base_revision: 1, content: same, summary: 'one' });
    const second = proposeChange(room, caller('agent1'), { base_revision: 1, content: same, summary: 'two' });
    approveProposal(room, approver, { proposal_id: first.proposal.proposal_id });
    expectRefused(
      room,
      () => approveProposal(room, approver, { proposal_id: second.proposal.proposal_id }),
      'conflict',
      `proposal ${second.proposal.proposal_id} is based on revision 1, but the artifact is at revision 2, which already holds its changes: approving it would write nothing new`,
    );
  });

  test('an outside edit is a revision like any other: a proposal to other lines merges onto it', () => {
    const { room, text } = roomOf(2);
    const proposed = text.replace('The text of section 1.', 'From the room.');
    const { proposal } = proposeChange(room, caller('agent0'), { base_revision: 1, content: proposed, summary: 'x' });
    const edited = text.replace('## Section 0', '## Typed in an editor');
    writeFileSync(t!.artifact, edited);
    const decided = approveProposal(room, approver, { proposal_id: proposal.proposal_id });
    expect(decided.revision).toMatchObject({ number: 3, merged_base: 1, source: 'proposal' });
    expect(readFileSync(t!.artifact, 'utf8')).toBe(edited.replace('The text of section 1.', 'From the room.'));
  });
});

/** Lines with a name each, and edits (replace, delete, insert after) at some of them. */
const lineEdit = fc.record({ at: fc.nat(), kind: fc.constantFrom('replace', 'delete', 'insert') });

function apply(lines: string[], edits: { at: number; kind: string }[], side: string): string[] {
  const out: string[] = [];
  lines.forEach((line, i) => {
    const edit = edits.find((e) => e.at === i);
    if (!edit) return void out.push(line);
    if (edit.kind === 'replace') out.push(`${side} replaced ${line}`);
    if (edit.kind === 'insert') out.push(line, `${side} inserted after ${line}`);
  });
  return out;
}

describe('merge, over random line edits', () => {
  test('edits two lines apart or more always merge, into both sides’ edits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 60 }), fc.array(lineEdit, { maxLength: 20 }), (n, raw) => {
        const base = Array.from({ length: n }, (_, i) => `line ${i}`);
        // Alternate sides by position, every third line only: no two edits touch or neighbour.
        const positions = [...new Set(raw.map((e) => (e.at % Math.floor(n / 3)) * 3))];
        const edits = positions.map((at, i) => ({
          at,
          kind: raw[i]!.kind,
          side: i % 2 === 0 ? 'current' : 'proposal',
        }));
        const ours = edits.filter((e) => e.side === 'current');
        const theirs = edits.filter((e) => e.side === 'proposal');
        const current = apply(base, ours, 'current');
        const proposal = apply(base, theirs, 'proposal');
        const merged = mergeThreeWay(base.join('\n'), current.join('\n'), proposal.join('\n'));
        const both = base.flatMap((line, i) => {
          const edit = edits.find((e) => e.at === i);
          return edit ? apply([line], [{ at: 0, kind: edit.kind }], edit.side) : [line];
        });
        expect(merged).toEqual({ text: both.join('\n'), conflicts: [] });
      }),
      { numRuns: 300 },
    );
  });

  // Markdown repeats lines (blank ones, above all): the second kind of base has only four different lines.
  const distinct = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`);
  const repeating = (n: number) =>
    Array.from({ length: n }, (_, i) => ['', '## Notes', 'Some text.', ''][(i * 7) % 4]!);
  test.each([
    ['distinct lines', distinct],
    ['lines that repeat', repeating],
  ])(
    'any edits of %s: a merge never invents a line, keeps every line one side added, and names conflicts within the texts',
    (_kind, linesOfBase) => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 60 }),
          fc.array(lineEdit, { maxLength: 12 }),
          fc.array(lineEdit, { maxLength: 12 }),
          (n, ourEdits, theirEdits) => {
            const base = linesOfBase(n);
            const at = (edits: { at: number; kind: string }[]) => edits.map((e) => ({ ...e, at: e.at % n }));
            const current = apply(base, at(ourEdits), 'current');
            const proposal = apply(base, at(theirEdits), 'proposal');
            const merged = mergeThreeWay(base.join('\n'), current.join('\n'), proposal.join('\n'));
            if (merged.text === null) {
              // Within each text as lines ('' is one empty line there, as in a file with no text).
              const length = (lines: string[]) => lines.join('\n').split('\n').length;
              expect(merged.conflicts.length).toBeGreaterThan(0);
              for (const conflict of merged.conflicts) {
                expect(conflict.base.start + conflict.base.count - 1).toBeLessThanOrEqual(length(base));
                expect(conflict.current.start + conflict.current.count - 1).toBeLessThanOrEqual(length(current));
                expect(conflict.proposal.start + conflict.proposal.count - 1).toBeLessThanOrEqual(length(proposal));
              }
              return;
            }
            const lines = merged.text === '' ? [] : merged.text.split('\n'); // '' is a text of no lines
            const known = new Set([...base, ...current, ...proposal]);
            for (const line of lines) expect(known.has(line), `invented: ${line}`).toBe(true);
            const added = [...current, ...proposal].filter((line) => !base.includes(line));
            for (const line of added) expect(lines, `lost: ${line}`).toContain(line);
          },
        ),
        { numRuns: 500 },
      );
    },
  );
});

describe('mergeable, on every open proposal', () => {
  const kindsOf = (room: Room) =>
    (
      room.store.db.prepare("SELECT payload_json FROM events WHERE type = 'proposal.mergeable' ORDER BY id").all() as {
        payload_json: string;
      }[]
    ).map((row) => JSON.parse(row.payload_json) as Record<string, unknown>);

  test('up to date when made, then clean or conflicts as revisions land; an event each time it changes', () => {
    const { room, text } = roomOf(3);
    const propose = (who: string, from: string, to: string) =>
      proposeChange(room, caller(who), { base_revision: 1, content: text.replace(from, to), summary: who }).proposal;
    const first = propose('agent0', 'The text of section 0.', 'Zero.');
    const clean = propose('agent1', 'The text of section 2.', 'Two.');
    const conflicting = propose('agent2', 'The text of section 0.', 'Nought.');
    expect(first.mergeable).toEqual({ status: 'up_to_date', revision: 1, conflicts: [] });
    approveProposal(room, approver, { proposal_id: first.proposal_id });
    const read = (id: string) => getProposal(room, approver, { proposal_id: id }).proposal.mergeable;
    expect(read(clean.proposal_id)).toEqual({ status: 'clean', revision: 2, conflicts: [] });
    const line2 = { start: 2, count: 1 };
    expect(read(conflicting.proposal_id)).toEqual({
      status: 'conflicts',
      revision: 2,
      conflicts: [{ base: line2, current: line2, proposal: line2 }],
    });
    expect(read(first.proposal_id)).toBeNull(); // decided
    // One event each; made at the same moment, the two proposals come in no set order.
    expect(kindsOf(room)).toHaveLength(2);
    expect(kindsOf(room)).toEqual(
      expect.arrayContaining([
        { proposal_id: clean.proposal_id, author: 'agent1', status: 'clean', revision: 2 },
        { proposal_id: conflicting.proposal_id, author: 'agent2', status: 'conflicts', revision: 2 },
      ]),
    );
    // Another revision that leaves them as they were: worked out again, and no news.
    approveProposal(room, approver, { proposal_id: clean.proposal_id });
    expect(read(conflicting.proposal_id)).toMatchObject({ status: 'conflicts', revision: 3 });
    expect(kindsOf(room)).toHaveLength(2);
  });

  test('already applied when the current revision holds its changes: said so, as the approval it would refuse', () => {
    const { room, text } = roomOf(3);
    const propose = (who: string) =>
      proposeChange(room, caller(who), {
        base_revision: 1,
        content: text.replace('The text of section 1.', 'One.'),
        summary: who,
      }).proposal;
    const [first, again] = [propose('agent0'), propose('agent1')];
    approveProposal(room, approver, { proposal_id: first.proposal_id });
    const mergeable = getProposal(room, approver, { proposal_id: again.proposal_id }).proposal.mergeable;
    expect(mergeable).toEqual({ status: 'already_applied', revision: 2, conflicts: [] });
    expect(kindsOf(room)).toEqual([
      { proposal_id: again.proposal_id, author: 'agent1', status: 'already_applied', revision: 2 },
    ]);
    expectRefused(
      room,
      () => approveProposal(room, approver, { proposal_id: again.proposal_id }),
      'conflict',
      /already holds its changes: approving it would write nothing new/,
    );
  });
});
