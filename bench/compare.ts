// Two builds of ce serve side by side (`npm run bench:compare`): this
// tree's and another checkout's (COMPARE_WITH, a directory holding its own
// bin/ce.js, dist/ and node_modules/, built), each on a fresh room, served
// on core 0 and loaded from core 1, one after the other, the order turned
// each round. Reported per build: requests a second and the CPU time of all
// the server's threads per request, medians over the rounds. What a change
// to the write path or a read's is worth, beside the machine's swing: two
// builds of the same code differ by a few per cent here.
// COMPARE_LOAD=writes (the default: 16 clients, handoff_create then
// tasks/cancel, as bench:serve's durable writes) or reads (tasks/get over
// MCP, 10 clients); BENCH_ROUNDS (6) and BENCH_SECONDS (5).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LoadResult } from './lib/load-worker.js';
import { taskGet } from './lib/mcp.js';
import { buildPrograms, cpuMicros, pinSelfToLoadCore, SERVE_QUIETLY, startServer } from './lib/processes.js';
import { makeRoom } from './lib/rooms.js';
import { load, originOf, READ_CONNECTIONS, WRITE_CONNECTIONS } from './lib/runs.js';
import { median, root } from './report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LOAD = process.env.COMPARE_LOAD ?? 'writes';
const other = process.env.COMPARE_WITH;

function refuse(message: string): never {
  process.stderr.write(`bench:compare: ${message}\n`);
  process.exit(2);
}
if (LOAD !== 'writes' && LOAD !== 'reads') refuse(`COMPARE_LOAD must be writes or reads (it was ${LOAD})`);
if (!other) refuse('COMPARE_WITH must name another built checkout (a directory with bin/ce.js and dist/)');
const otherDir = path.resolve(other);
for (const needed of ['bin/ce.js', 'dist', 'node_modules']) {
  if (!existsSync(path.join(otherDir, needed))) {
    refuse(
      `COMPARE_WITH=${other} has no ${needed}: clone or \`git worktree add\` it, then npm ci and npm run build there`,
    );
  }
}

interface Measured {
  perSecond: number;
  /** µs of the server's CPU per request. */
  cpu: number;
}

/** One load run against `dir`'s build on a fresh room. */
async function measure(dir: string): Promise<Measured> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'ce-compare-'));
  try {
    const room = makeRoom(scratch, 'room');
    const served = await startServer([path.join(dir, 'bin', 'ce.js'), 'serve', room.file, ...SERVE_QUIETLY]).catch(
      (error: unknown) => {
        rmSync(scratch, { recursive: true, force: true });
        // This tree's engine made the room: a checkout that knows an older schema refuses it.
        refuse(`${dir}: ce serve did not start on a room this tree made: ${(error as Error).message}`);
      },
    );
    try {
      const origin = originOf(served.line.mcp_url);
      const pid = served.child.pid!;
      const before = cpuMicros(pid);
      const result: LoadResult =
        LOAD === 'writes'
          ? await load(origin, { kind: 'create-cancel', token: room.alice }, WRITE_CONNECTIONS, SECONDS)
          : await load(
              origin,
              { kind: 'fixed', method: 'POST', path: '/mcp', request: taskGet(room.alice, room.taskId) },
              READ_CONNECTIONS,
              SECONDS,
            );
      const cpu = (cpuMicros(pid) - before) / result.total;
      const failed = result.non2xx + result.errors + result.refused;
      if (failed > 0 || result.total === 0) throw new Error(`${dir}: ${failed} of ${result.total} requests failed`);
      return { perSecond: result.perSecond, cpu };
    } finally {
      await served.stop();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

pinSelfToLoadCore();
await buildPrograms();
const builds: [string, string][] = [
  ['this tree', root],
  [other, otherDir],
];
const runs = new Map<string, Measured[]>(builds.map(([name]) => [name, []]));
const unit = LOAD === 'writes' ? 'write' : 'read';
console.log(`${LOAD}: ${ROUNDS} rounds of ${SECONDS} s, each build on a fresh room, one after the other`);
for (let round = 0; round < ROUNDS; round++) {
  const line: string[] = [];
  for (const [name, dir] of round % 2 === 0 ? builds : [...builds].reverse()) {
    const measured = await measure(dir);
    runs.get(name)!.push(measured);
    line.push(`${name} ${measured.perSecond.toFixed(0)}/s, ${measured.cpu.toFixed(0)} µs a ${unit}`);
  }
  console.log(`round ${round + 1}: ${line.join('; ')}`);
}
const [mine, theirs] = builds.map(([name]) => name) as [string, string];
const medianOf = (name: string, key: keyof Measured) => median(runs.get(name)!.map((m) => m[key]));
for (const [name] of builds) {
  console.log(`${name}: ${medianOf(name, 'perSecond').toFixed(0)}/s, ${medianOf(name, 'cpu').toFixed(0)} µs a ${unit}`);
}
console.log(
  `this tree ÷ ${theirs}: ${(medianOf(mine, 'perSecond') / medianOf(theirs, 'perSecond')).toFixed(2)} × the rate, ` +
    `${(medianOf(mine, 'cpu') / medianOf(theirs, 'cpu')).toFixed(2)} × the CPU a ${unit}`,
);
