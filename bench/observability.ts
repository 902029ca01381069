// What the log and the metrics cost (`npm run bench:observe`): two rooms
// served side by side, one with `--log-level silent` and no metrics, one
// with the request log at info (JSON lines into a file, as a service's
// journal takes them) and `--metrics` scraped every second; tasks/get and
// durable writes against each, in alternating order, ratios per round.
// Rounds are many and short (15 of 2 s by default): this machine's speed
// drifts by half within a minute, and only two runs side by side see the
// same machine.
import { closeSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { readRuntimeFile } from '../src/http/runtime-file.js';
import { taskGet } from './lib/mcp.js';
import { buildPrograms, pinning, pinSelfToLoadCore, startServer, type Served } from './lib/processes.js';
import { makeRoom } from './lib/rooms.js';
import { cancelLeftovers, inTurn, load, originOf, readRate, WRITE_CONNECTIONS } from './lib/runs.js';
import { machine, median, root, writeSection } from './report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const SCRAPE_MS = 1000;
const ce = path.join(root, 'bin', 'ce.js');

interface Round {
  readOff: number;
  readOn: number;
  writeOff: number;
  writeOn: number;
  scrapes: number;
}

/** Scrapes /metrics as Prometheus would, every SCRAPE_MS, while `during` runs; the count of scrapes. */
async function scraped<T>(origin: string, token: string, during: () => Promise<T>): Promise<[T, number]> {
  let scrapes = 0;
  let running = true;
  const scraper = (async () => {
    while (running) {
      const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
      await response.text();
      scrapes += 1;
      await new Promise((resolve) => setTimeout(resolve, SCRAPE_MS));
    }
  })();
  try {
    return [await during(), scrapes];
  } finally {
    running = false;
    await scraper;
  }
}

pinSelfToLoadCore();
const loadAtStart = loadavg()[0]!;
await buildPrograms();
const dir = mkdtempSync(path.join(tmpdir(), 'ce-bench-observe-'));
const servers: Served[] = [];
const logFile = path.join(dir, 'room.log');
const logFd = openSync(logFile, 'a');
try {
  const quiet = makeRoom(dir, 'quiet');
  const observed = makeRoom(dir, 'observed');
  const serve = async (args: string[], stderrFd?: number) => {
    const served = await startServer([ce, 'serve', ...args, '--port', '0', '--json'], {}, stderrFd);
    servers.push(served);
    return served;
  };
  const off = await serve([quiet.file, '--log-level', 'silent']);
  const on = await serve([observed.file, '--log-level', 'info', '--log-format', 'json', '--metrics'], logFd);
  const offOrigin = originOf(off.line.mcp_url);
  const onOrigin = originOf(on.line.mcp_url);
  const operator = readRuntimeFile(observed.file)!.operator_token;
  const reads = {
    off: { kind: 'fixed', method: 'POST', path: '/mcp', request: taskGet(quiet.alice, quiet.taskId) },
    on: { kind: 'fixed', method: 'POST', path: '/mcp', request: taskGet(observed.alice, observed.taskId) },
  } as const;
  await load(offOrigin, reads.off, 10, 1);
  await load(onOrigin, reads.on, 10, 1);

  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let scrapes = 0;
    const [readOff, readOn] = await inTurn(
      round,
      () => readRate(offOrigin, reads.off, 'tasks/get, neither', SECONDS),
      async () => {
        const [rate, n] = await scraped(onOrigin, operator, () =>
          readRate(onOrigin, reads.on, 'tasks/get, both', SECONDS),
        );
        scrapes += n;
        return rate;
      },
    );
    const writes = async (origin: string, room: typeof quiet) => {
      const result = await load(origin, { kind: 'create-cancel', token: room.alice }, WRITE_CONNECTIONS, SECONDS);
      await cancelLeftovers(origin, room);
      return result.perSecond;
    };
    const [writeOff, writeOn] = await inTurn(
      round,
      () => writes(offOrigin, quiet),
      async () => {
        const [rate, n] = await scraped(onOrigin, operator, () => writes(onOrigin, observed));
        scrapes += n;
        return rate;
      },
    );
    rounds.push({ readOff, readOn, writeOff, writeOn, scrapes });
    console.log(
      `round ${round + 1}/${ROUNDS}: tasks/get ${readOn.toFixed(0)}/s with both, ${readOff.toFixed(0)}/s with neither; ` +
        `writes ${writeOn.toFixed(0)}/s with both, ${writeOff.toFixed(0)}/s with neither; ${scrapes} scrapes`,
    );
  }

  const read = median(rounds.map((r) => r.readOn / r.readOff));
  const write = median(rounds.map((r) => r.writeOn / r.writeOff));
  const cost = (ratio: number) => `${((1 - ratio) * 100).toFixed(1)} %`;
  const met = (ratio: number) => (ratio >= 0.9 ? 'yes' : '**no**');
  const logBytes = statSync(logFile).size;
  const body = `## What the log and the metrics cost (\`npm run bench:observe\`)

${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadAtStart.toFixed(1)} at the start. Two rooms served at once, ${
    pinning ? `both pinned to core ${pinning.server}, the load to core ${pinning.load}` : 'not pinned'
  }: one with \`--log-level silent\` and no metrics, one with \`--log-level info --log-format json --metrics\` (its log into a file, ${(logBytes / 2 ** 20).toFixed(0)} MiB by the end; \`/metrics\` scraped every ${SCRAPE_MS / 1000} s while it is measured). ${ROUNDS} rounds of ${SECONDS} s per run, which room first alternating; medians of the per-round ratios.

| what | with both ÷ with neither | cost | goal | met |
| --- | --- | --- | --- | --- |
| \`tasks/get\` over MCP, 10 connections | ${read.toFixed(3)} | ${cost(read)} | under 10 % | ${met(read)} |
| durable writes over MCP (\`handoff_create\` then \`tasks/cancel\`), ${WRITE_CONNECTIONS} connections | ${write.toFixed(3)} | ${cost(write)} | under 10 % | ${met(write)} |

<details><summary>Every round</summary>

| round | tasks/get /s, both | neither | writes /s, both | neither | scrapes |
| --- | --- | --- | --- | --- | --- |
${rounds.map((r, i) => `| ${i + 1} | ${r.readOn.toFixed(0)} | ${r.readOff.toFixed(0)} | ${r.writeOn.toFixed(0)} | ${r.writeOff.toFixed(0)} | ${r.scrapes} |`).join('\n')}

</details>`;
  writeSection('observe', body);
  console.log(
    `\ntasks/get ${read.toFixed(3)} (${cost(read)}), writes ${write.toFixed(3)} (${cost(write)}); written to BENCHMARKS.md`,
  );
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  closeSync(logFd);
  rmSync(dir, { recursive: true, force: true });
}
