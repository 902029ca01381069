// How fast ce starts: `ce --help` and `ce handoffs FILE --json` (a room
// with a few handoffs) against `node -e 0`, the floor of any Node program,
// in alternating rounds. Goals: at most 3 × and 5 × node -e 0.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { machine, median, root, writeSection } from './report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const ce = path.join(root, 'bin', 'ce.js');

function run(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr}`);
  return elapsed;
}

const dir = mkdtempSync(path.join(tmpdir(), 'ce-bench-'));
const file = path.join(dir, 'notes.md');
writeFileSync(file, '# Notes\n');
try {
  spawnSync(process.execPath, [ce, 'init', file]);
  for (const name of ['alice', 'bob']) spawnSync(process.execPath, [ce, 'participant', 'add', file, name]);
  for (let i = 0; i < 20; i++) {
    const args = ['handoff-create', file, '--participant', 'alice', '--summary', `Task ${i}`, '--assignee', 'bob'];
    spawnSync(process.execPath, [ce, ...args]);
  }
  const commands = {
    'node -e 0': ['-e', '0'],
    'ce --help': [ce, '--help'],
    'ce handoffs FILE --json': [ce, 'handoffs', file, '--json'],
  };
  for (const args of Object.values(commands)) run(args); // warm the file cache
  const rounds: Record<string, number>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push(Object.fromEntries(Object.entries(commands).map(([name, args]) => [name, run(args)])));
  }
  const ratio = (name: string) => median(rounds.map((r) => r[name]! / r['node -e 0']!));
  const help = ratio('ce --help');
  const handoffs = ratio('ce handoffs FILE --json');
  const ms = (name: string) => median(rounds.map((r) => r[name]!)).toFixed(0);
  const body = `## Start-up of ce (\`npm run bench:startup\`)

${new Date().toISOString().slice(0, 10)}, ${machine()}. ${ROUNDS} rounds; each round runs the three commands once, in this order.

| command | median ms | ÷ node -e 0 (median of rounds) | goal | met |
| --- | --- | --- | --- | --- |
| \`node -e 0\` | ${ms('node -e 0')} | 1.00 | | |
| \`ce --help\` | ${ms('ce --help')} | ${help.toFixed(2)} | ≤ 3 | ${help <= 3 ? 'yes' : 'no'} |
| \`ce handoffs FILE --json\` (20 handoffs) | ${ms('ce handoffs FILE --json')} | ${handoffs.toFixed(2)} | ≤ 5 | ${handoffs <= 5 ? 'yes' : 'no'} |

<details><summary>Every round (ms)</summary>

| round | node -e 0 | ce --help | ce handoffs |
| --- | --- | --- | --- |
${rounds.map((r, i) => `| ${i + 1} | ${r['node -e 0']!.toFixed(1)} | ${r['ce --help']!.toFixed(1)} | ${r['ce handoffs FILE --json']!.toFixed(1)} |`).join('\n')}

</details>`;
  writeSection('startup', body);
  console.log(body.split('<details>')[0]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
