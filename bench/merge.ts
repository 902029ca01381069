// How long approving a proposal on an older revision holds the room: the
// three-way merge (src/engine/proposals/merge.ts) of a 1 MiB file with 100
// scattered edits (50 on each side, none touching), and of a typical file
// (1,000 lines, 5 edits a side), against one line diff of the same texts
// (jsdiff's Myers diffArrays, base → proposal): the least any line merge
// must do. Goal: a few ms (≤ 5), since the room waits while it runs.
import { diffArrays } from 'diff';
import { mergeThreeWay } from '../src/engine/proposals/merge.js';
import { machine, median, writeSection } from './report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

function texts(lines: number, editsPerSide: number) {
  const base = Array.from({ length: lines }, (_, i) => `Line ${i}: a sentence of the notes, about fifty bytes.`);
  const current = [...base];
  const proposal = [...base];
  const step = Math.floor(lines / (editsPerSide * 2));
  for (let k = 0; k < editsPerSide; k++) {
    current[2 * k * step + 1] = `Changed in the current revision (${k}).`;
    proposal[(2 * k + 1) * step + 1] = `Changed in the proposal (${k}).`;
  }
  return { base: base.join('\n'), current: current.join('\n'), proposal: proposal.join('\n') };
}

const time = (run: () => unknown): number => {
  const started = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - started) / 1e6;
};

const cases = {
  '1 MiB, 100 edits': texts(20_000, 50),
  '1,000 lines, 10 edits': texts(1_000, 5),
};
const rows: string[] = [];
for (const [name, { base, current, proposal }] of Object.entries(cases)) {
  const merged = mergeThreeWay(base, current, proposal);
  if (merged.text === null) throw new Error(`${name}: the edits conflict`);
  const rounds = Array.from({ length: ROUNDS }, () => {
    const anchor = time(() => diffArrays(base.split('\n'), proposal.split('\n')));
    const merge = time(() => mergeThreeWay(base, current, proposal));
    return { anchor, merge };
  });
  const ms = median(rounds.map((r) => r.merge));
  const ratio = median(rounds.map((r) => r.merge / r.anchor));
  rows.push(
    `| ${name} (${(Buffer.byteLength(base) / 2 ** 20).toFixed(2)} MiB) | ${median(rounds.map((r) => r.anchor)).toFixed(1)} | ${ms.toFixed(1)} | ${ratio.toFixed(1)} | ≤ 5 ms | ${ms <= 5 ? 'yes' : 'no'} |`,
  );
}
writeSection(
  'merge',
  `## Three-way merge on approve (\`npm run bench:merge\`)

${new Date().toISOString().slice(0, 10)}, ${machine()}. ${ROUNDS} rounds; each round times one Myers line diff (the anchor) and one merge.

| case | diff ms (anchor) | merge ms | ÷ anchor | goal | met |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

The merge runs on the room's thread while an approval holds it. node-diff3's
longest-common-subsequence step grows with the square of the lines it
compares, so the texts are first cut, by two Myers diffs (base → current, base
→ proposal), where neither side changed anything for a few lines, and each
piece is merged on its own: the cost is the two diffs and a few small diff3s.
The anchor is one of those diffs, so about 2 × is the floor.`,
);
console.log(rows.join('\n'));
