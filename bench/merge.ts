// How long approving a proposal on an older revision holds the room: the
// three-way merge (src/engine/proposals/merge.ts) of a 1 MiB file with 100
// scattered edits (50 on each side, none touching), of the largest text a
// proposal may hold (512 KiB), and of a typical file (1,000 lines, 5 edits a
// side), against one line diff of the same texts (jsdiff's Myers
// diffArrays, base → proposal). Goal: a few ms (≤ 5) for the approval,
// since the room waits while it runs.
import { diffArrays } from 'diff';
import { mergeThreeWay } from '../src/engine/proposals/merge.js';
import { machine, median, writeSection } from './report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

/** The three texts; `round` makes each round's texts new to the merge's memory. */
function texts(lines: number, editsPerSide: number, round: number) {
  const base = Array.from({ length: lines }, (_, i) => `Line ${i}: a sentence of the notes, about fifty bytes.`);
  base[0] = `Round ${round} of the notes.`;
  const current = [...base];
  const proposal = [...base];
  const step = Math.floor(lines / (editsPerSide * 2));
  for (let k = 0; k < editsPerSide; k++) {
    current[2 * k * step + 1] = `Changed in the current revision (${k}).`;
    proposal[(2 * k + 1) * step + 1] = `Changed in the proposal (${k}).`;
  }
  return { base: base.join('\n'), current: current.join('\n'), proposal: proposal.join('\n') };
}

/** The same characters in a new string, as a text read again from the sidecar is. */
const readAgain = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

const time = (run: () => unknown): number => {
  const started = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - started) / 1e6;
};

const cases: Record<string, [number, number]> = {
  '1 MiB, 100 edits': [20_000, 50],
  '512 KiB (the largest proposal), 100 edits': [10_000, 50],
  '1,000 lines, 10 edits': [1_000, 5],
};
const rows: string[] = [];
for (const [name, [lines, edits]] of Object.entries(cases)) {
  const rounds = Array.from({ length: ROUNDS }, (_, round) => {
    const { base, current, proposal } = texts(lines, edits, round);
    const anchor = time(() => diffArrays(base.split('\n'), proposal.split('\n')));
    // First, as a revision lands: whether the proposal merges onto it (and whether it holds it already), on
    // texts the merge has not seen.
    let conflicts: unknown[] = [];
    const cold = time(() => (conflicts = mergeThreeWay(base, current, proposal).conflicts));
    if (conflicts.length > 0) throw new Error(`${name}: the edits conflict`);
    // Then the approval: the merged text, from the same texts read again from the sidecar.
    const [o, a, b] = [readAgain(base), readAgain(current), readAgain(proposal)];
    const warm = time(() => mergeThreeWay(o, a, b));
    return { anchor, cold, warm, size: Buffer.byteLength(base) };
  });
  const ms = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  const warm = ms((r) => r.warm);
  rows.push(
    `| ${name} (${(rounds[0]!.size / 2 ** 20).toFixed(2)} MiB) | ${ms((r) => r.anchor).toFixed(1)} | ${ms((r) => r.cold).toFixed(1)} | ${ms((r) => r.cold / r.anchor).toFixed(1)} | ${warm.toFixed(1)} | ≤ 5 ms | ${warm <= 5 ? 'yes' : 'no'} |`,
  );
}
writeSection(
  'merge',
  `## Three-way merge on approve (\`npm run bench:merge\`)

${new Date().toISOString().slice(0, 10)}, ${machine()}. ${ROUNDS} rounds, medians; each round times one Myers line diff of base and proposal (the anchor), working out whether the proposal merges, on texts the merge has not seen (*first*: what the room does for each open proposal when a revision lands), and the merge that makes the text, on the same texts read anew (*approval*: what an approval then holds the room for).

| case | diff ms (anchor) | first ms | first ÷ anchor | approval ms | goal (approval) | met |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

The merge runs on the room's thread. node-diff3's longest-common-subsequence
step grows with the square of the lines it compares, so the texts are first
cut, by two Myers diffs (base → current, base → proposal), where neither side
changed anything for a few lines; each changed place is merged on its own, and
the unchanged runs between them go into the result as slices of the current
text. The lines of the last 16 texts and the diffs between them are
remembered (src/engine/proposals/merge-memory.ts): when a revision lands the
room works out every open proposal against it (two diffs at most, the one
onto the new revision shared by every proposal on the same base, and the
merged text made, so that one it already holds says so), and the approval that follows finds both diffs done: what
is left is the merged places and one copy of the text (about 3 ms a MiB
here: the floor of making a 1 MiB string). A proposed text is at most
512 KiB; the 1 MiB case is an outside edit's size.`,
);
console.log(rows.join('\n'));
