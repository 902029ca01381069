// What the log and the metrics cost (`npm run bench:observe`): two rooms
// served side by side, one with `--log-level silent` and no metrics, one
// with the request log at info (JSON lines into a file, as a service's
// journal takes them) and `--metrics` scraped every 15 s, and every second
// as well in a stress row.
// tasks/get loads both rooms at once, on the one core they share: each gets
// half of it, and the cost is what a request takes of it, the CPU time of
// all the room's threads (/proc/PID/task/*/schedstat, in nanoseconds)
// divided by the requests it answered. Run one after the other, two rooms
// met a machine whose speed drifts by half within a minute: two identical
// rooms differed by ±3 % that way, by ±1.5 % at once.
// Durable writes wait on the disk more than on the core, so they are run
// one room after the other, first one then the other, and compared by rate.
import { closeSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { readRuntimeFile } from '../src/http/runtime-file.js';
import { taskGet } from './lib/mcp.js';
import { buildPrograms, cpuMicros, pinning, pinSelfToLoadCore, startServer, type Served } from './lib/processes.js';
import { makeRoom } from './lib/rooms.js';
import type { LoadResult } from './lib/load-worker.js';
import { cancelLeftovers, inTurn, load, originOf, READ_CONNECTIONS, WRITE_CONNECTIONS } from './lib/runs.js';
import { machine, median, root, writeSection } from './report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** Prometheus scrapes every minute unless told otherwise; 15 s is the interval its example configuration sets. */
const SCRAPE_MS = 15_000;
/** A stress row: a second scraper, every second. */
const STRESS_SCRAPE_MS = 1000;
const ce = path.join(root, 'bin', 'ce.js');

interface Round {
  /** Per tasks/get, µs of CPU. */
  readOff: number;
  readOn: number;
  /** The same, with /metrics also scraped every second. */
  stressOff: number;
  stressOn: number;
  writeOff: number;
  writeOn: number;
}

interface Loaded {
  pid: number;
  run: () => Promise<LoadResult>;
}

/** Both loads at once; the µs of CPU each room spent per request. */
async function cpuPerRequest(a: Loaded, b: Loaded): Promise<[number, number]> {
  const before = [cpuMicros(a.pid), cpuMicros(b.pid)];
  const results = await Promise.all([a.run(), b.run()]);
  const perRequest = ({ pid }: Loaded, i: number) => {
    const { total, non2xx, errors } = results[i]!;
    if (non2xx > 0 || errors > 0 || total === 0) {
      throw new Error(`tasks/get: ${non2xx} non-2xx answers, ${errors} errors of ${total}`);
    }
    return (cpuMicros(pid) - before[i]!) / total;
  };
  return [perRequest(a, 0), perRequest(b, 1)];
}

/** Scrapes /metrics as Prometheus would, every `everyMs` until stopped; stop() tells how many scrapes there were. */
function scraper(origin: string, token: string, everyMs: number): { stop(): Promise<number> } {
  let scrapes = 0;
  let running = true;
  let wake = () => {};
  const scraping = (async () => {
    while (running) {
      const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
      await response.text();
      scrapes += 1;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, everyMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async stop() {
      running = false;
      wake();
      await scraping;
      return scrapes;
    },
  };
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

  // Prometheus, every SCRAPE_MS throughout.
  const prometheus = scraper(onOrigin, operator, SCRAPE_MS);
  let stressScrapes = 0;
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const reading = (extraScrapeMs?: number) =>
      cpuPerRequest(
        { pid: off.child.pid!, run: () => load(offOrigin, reads.off, READ_CONNECTIONS, SECONDS) },
        {
          pid: on.child.pid!,
          run: async () => {
            const extra = extraScrapeMs === undefined ? null : scraper(onOrigin, operator, extraScrapeMs);
            try {
              return await load(onOrigin, reads.on, READ_CONNECTIONS, SECONDS);
            } finally {
              stressScrapes += (await extra?.stop()) ?? 0;
            }
          },
        },
      );
    const [readOff, readOn] = await reading();
    const [stressOff, stressOn] = await reading(STRESS_SCRAPE_MS);
    const writes = async (origin: string, room: typeof quiet) => {
      const result = await load(origin, { kind: 'create-cancel', token: room.alice }, WRITE_CONNECTIONS, SECONDS);
      await cancelLeftovers(origin, room);
      return result.perSecond;
    };
    const [writeOff, writeOn] = await inTurn(
      round,
      () => writes(offOrigin, quiet),
      () => writes(onOrigin, observed),
    );
    rounds.push({ readOff, readOn, stressOff, stressOn, writeOff, writeOn });
    console.log(
      `round ${round + 1}/${ROUNDS}: tasks/get ${readOn.toFixed(1)} µs of CPU with both, ${readOff.toFixed(1)} with neither ` +
        `(${stressOn.toFixed(1)} and ${stressOff.toFixed(1)} scraped every second); ` +
        `writes ${writeOn.toFixed(0)}/s with both, ${writeOff.toFixed(0)}/s with neither`,
    );
  }
  const scrapes = await prometheus.stop();

  // One scrape's own CPU, with nothing else to do, in the room as the run left it.
  const beforeScrapes = cpuMicros(on.child.pid!);
  const alone = scraper(onOrigin, operator, 0);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const scrapedAlone = await alone.stop();
  const scrapeMs = (cpuMicros(on.child.pid!) - beforeScrapes) / scrapedAlone / 1000;

  // As a rate on a core of its own: requests per second of CPU, both ÷ neither.
  const read = median(rounds.map((r) => r.readOff / r.readOn));
  const stress = median(rounds.map((r) => r.stressOff / r.stressOn));
  const write = median(rounds.map((r) => r.writeOn / r.writeOff));
  const cost = (ratio: number) => `${((1 - ratio) * 100).toFixed(1)} %`;
  const met = (ratio: number) => (ratio >= 0.9 ? 'yes' : '**no**');
  const logBytes = statSync(logFile).size;
  const body = `## What the log and the metrics cost (\`npm run bench:observe\`)

${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadAtStart.toFixed(1)} at the start. Two rooms served at once, ${
    pinning ? `both pinned to core ${pinning.server}, the load to core ${pinning.load}` : 'not pinned'
  }: one with \`--log-level silent\` and no metrics, one with \`--log-level info --log-format json --metrics\`, its log into a file (${(logBytes / 2 ** 20).toFixed(0)} MiB by the end), its \`/metrics\` scraped every ${SCRAPE_MS / 1000} s throughout (${scrapes} scrapes; Prometheus' example configuration sets 15 s, its default is a minute). ${ROUNDS} rounds of ${SECONDS} s; medians of the per-round ratios. \`tasks/get\`: both rooms loaded at once, sharing their core, each with ${READ_CONNECTIONS} connections, and compared by the CPU time (all its threads') each spent per request, as the rate each would reach on a core of its own; run one after the other instead, two identical rooms differed by ±3 % on this machine, whose speed drifts by half within a minute. Durable writes, which wait on the disk more than on the core: one room after the other, which first alternating, compared by rate.

| what | with both ÷ with neither | cost | goal | met |
| --- | --- | --- | --- | --- |
| \`tasks/get\` over MCP, per second of CPU | ${read.toFixed(3)} | ${cost(read)} | under 10 % | ${met(read)} |
| durable writes over MCP (\`handoff_create\` then \`tasks/cancel\`), ${WRITE_CONNECTIONS} connections | ${write.toFixed(3)} | ${cost(write)} | under 10 % | ${met(write)} |
| \`tasks/get\`, with \`/metrics\` also scraped every second (${stressScrapes} scrapes) | ${stress.toFixed(3)} | ${cost(stress)} | (a stress row) | |

One scrape, with nothing else to do, took ${scrapeMs.toFixed(1)} ms of the room's CPU (${scrapedAlone} scrapes, back to back, at the end of the run).

<details><summary>Every round</summary>

| round | tasks/get, µs of CPU each, both | neither | scraped every second: both | neither | writes /s, both | neither |
| --- | --- | --- | --- | --- | --- | --- |
${rounds.map((r, i) => `| ${i + 1} | ${r.readOn.toFixed(1)} | ${r.readOff.toFixed(1)} | ${r.stressOn.toFixed(1)} | ${r.stressOff.toFixed(1)} | ${r.writeOn.toFixed(0)} | ${r.writeOff.toFixed(0)} |`).join('\n')}

</details>`;
  writeSection('observe', body);
  console.log(
    `\ntasks/get ${read.toFixed(3)} (${cost(read)}), writes ${write.toFixed(3)} (${cost(write)}), ` +
      `tasks/get scraped every second ${stress.toFixed(3)}, a scrape ${scrapeMs.toFixed(1)} ms; written to BENCHMARKS.md`,
  );
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  closeSync(logFd);
  rmSync(dir, { recursive: true, force: true });
}
