// ce serve beside its anchors, in one run (`npm run bench`): every figure a
// median of per-round ratios to an anchor measured in the same round, the
// servers pinned to one core and the load generator to the other.
//
//   tasks/get over MCP        ÷ (a) Koa + @koa/router + better-sqlite3 point read
//   tasks/get over MCP        ÷ (b) the official MCP SDK v2 server, one trivial tool
//   durable writes over MCP   ÷ (c) a bare better-sqlite3 loop of one-row transactions
//   1,000 listens, last frame ÷ (d) bare node:http SSE broadcast to 1,000 streams
//   memory per idle listen stream
//   tasks/get, handoff_list and workspace_history (first pages) in a room of
//     100,000 handoffs and 10,000 revisions ÷ the same in a small room
//   ce serve's first answer after it starts, beside (e) a bare node:http +
//     better-sqlite3 server's
//
// BENCH_ROUNDS (5) and BENCH_SECONDS (5, per load run) make a quick run possible.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { sidecarPath } from '../src/store/sidecar.js';
import type { ListenersConfig } from './lib/listeners-worker.js';
import type { LoadScenario } from './lib/load-worker.js';
import { mcpPost, taskGet, toolCall } from './lib/mcp.js';
import {
  buildPrograms,
  firstLine,
  pinSelfToLoadCore,
  pinning,
  fileLimitProblem,
  raisedFiles,
  probed,
  probeMemory,
  program,
  runToEnd,
  SERVE_QUIETLY,
  shown,
  spawnNode,
  startServer,
  type Served,
} from './lib/processes.js';
import { makeRoom, roomCounts, type BenchRoom } from './lib/rooms.js';
import {
  cancelLeftovers,
  inTurn,
  load,
  originOf,
  READ_CONNECTIONS,
  readRate,
  rpc,
  SECONDS,
  WRITE_CONNECTIONS,
} from './lib/runs.js';
import { machine, median, root, writeSection } from './report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const STREAMS = 1000;
const MANY_STREAMS = 10_000;
/** Streams one listening process opens at most. */
const STREAMS_PER_WORKER = 5000;
/** Listener sessions a round uses: one for its 1,000 streams, ten for its 10,000 (a room holds 1,024 a session). */
const SESSIONS_PER_ROUND = 11;
const SCALE_HANDOFFS = 100_000;
const SCALE_REVISIONS = 10_000;
/** Handoffs and revisions of the small room the large one is compared with. */
const SMALL_PAGE = 100;
const ce = path.join(root, 'bin', 'ce.js');

interface Round {
  koa: number;
  sdk: number;
  roomRead: number;
  /** The same task read over REST (GET /workspace/task), and (a) run beside it. */
  restRead: number;
  koaForRest: number;
  loop: number;
  roomWrite: number;
  writeRefused: number;
  sseMs: number;
  listenMs: number;
  /** From the trigger to the first stream's frame: the server's lead (the room's commit and fsync), the rest the listeners' pace. */
  sseFirstMs: number;
  listenFirstMs: number;
  /** JavaScript heap and external memory per stream, after a full collection. */
  sseBytesPerStream: number;
  listenBytesPerStream: number;
  /** Resident memory per stream, after a full collection (the allocator may keep or return pages: noisy). */
  listenRssPerStream: number;
  /** The same fan-out to 10,000 streams. */
  sseManyMs: number;
  listenManyMs: number;
  listenManyBytesPerStream: number;
  smallRead: number;
  largeRead: number;
  /** handoff_list and workspace_history, first page, in the small room and the large one. */
  smallList: number;
  largeList: number;
  smallHistory: number;
  largeHistory: number;
  /** Medians of STARTS starts, in this process's environment. */
  firstAnswerMs: number;
  /** (e)'s: node:http and better-sqlite3 alone. */
  bareFirstAnswerMs: number;
  /** The same with NODE_EXTRA_CA_CERTS unset (DEFAULT_START), when this environment sets it. */
  defaultFirstAnswerMs: number | null;
  bareDefaultFirstAnswerMs: number | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A listeners worker's lines, one JSON value at a time. */
function linesOf(worker: ChildProcess): () => Promise<any> {
  let stderr = '';
  worker.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines: string[] = [];
  let wake: () => void = () => {};
  worker.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    lines.push(...chunk.split('\n').filter(Boolean));
    wake();
  });
  return async () => {
    while (lines.length === 0) {
      if (worker.exitCode !== null) throw new Error(`listeners exited: ${stderr}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 200);
      });
    }
    return JSON.parse(lines.shift()!);
  };
}

/**
 * Opens `count` streams from ceil(count / STREAMS_PER_WORKER) listening
 * processes, times one frame to all of them (from the trigger's sending to
 * the last stream's frame, in any process), then measures the server with
 * its streams idle again. Measured before the frame, the full collection the
 * measure asks for came just before the timed delivery: side by side, the
 * room took 1.14 and 1.44 times (d)'s time that way, where it took 1.01
 * with its memory measured before the streams opened.
 */
async function fanOut(
  server: Served,
  memoryFile: string,
  config: Omit<ListenersConfig, 'fires'>,
): Promise<{ ms: number; firstMs: number; bytesPerStream: number; rssPerStream: number }> {
  const before = await probeMemory(server.child, memoryFile);
  const parts = Math.ceil(config.count / STREAMS_PER_WORKER);
  const workers = Array.from({ length: parts }, (_, i) => {
    const share = Math.floor(config.count / parts) + (i < config.count % parts ? 1 : 0);
    const worker = spawnNode('load', [
      '--expose-gc',
      program('listeners-worker'),
      JSON.stringify({ ...config, count: share, fires: i === 0 } satisfies ListenersConfig),
    ]);
    return { worker, next: linesOf(worker) };
  });
  await Promise.all(workers.map(({ next }) => next())); // ready: every stream open and acknowledged
  await sleep(1000); // idle
  for (const { worker } of workers) worker.stdin!.write('arm\n');
  await Promise.all(workers.map(({ next }) => next()));
  workers[0]!.worker.stdin!.write('fire\n');
  const ends = (await Promise.all(workers.map(({ next }) => next()))) as {
    firstAt: number;
    lastAt: number;
    firedAt: number | null;
  }[];
  await sleep(1000); // idle again
  const after = await probeMemory(server.child, memoryFile);
  for (const { worker } of workers) worker.stdin!.write('close\n');
  await Promise.all(
    workers.map(
      ({ worker }) =>
        new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(null))),
    ),
  );
  const held = (m: NodeJS.MemoryUsage) => m.heapUsed + m.external;
  return {
    ms: Math.max(...ends.map((end) => end.lastAt)) - ends[0]!.firedAt!,
    firstMs: Math.min(...ends.map((end) => end.firstAt)) - ends[0]!.firedAt!,
    bytesPerStream: (held(after) - held(before)) / config.count,
    rssPerStream: (after.rss - before.rss) / config.count,
  };
}

/** Starts of each server a round, for the first answer: one start moves by a tenth. */
const STARTS = 5;
/**
 * Node reads the CA bundle NODE_EXTRA_CA_CERTS names at every start, before
 * any program's code (tens of milliseconds for a system's bundle): where it
 * is set, the first answer is also measured with it unset, as node starts by
 * default.
 */
const DEFAULT_START = process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: '' } : null;

/** Spawn to first answered tasks/get of `args` (a server that prints its mcp_url), stopped after. */
async function firstAnswer(args: string[], room: BenchRoom, env: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const child = spawnNode('server', args, { env });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const line = JSON.parse(await firstLine(child, () => stderr)) as { mcp_url: string };
  await rpc(originOf(line.mcp_url), taskGet(room.alice, room.taskId));
  const ms = performance.now() - started;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  return ms;
}

if (fileLimitProblem) throw new Error(fileLimitProblem);
pinSelfToLoadCore();
// Other programs on the machine share both cores: the report says how busy it was.
const loadAtStart = loadavg()[0]!;
console.log(`building the anchors and workers; ${ROUNDS} rounds of ${SECONDS} s per load run`);
await buildPrograms();
const dir = mkdtempSync(path.join(tmpdir(), 'ce-bench-'));
const servers: Served[] = [];
try {
  console.log(
    `seeding rooms (the scale room has ${SCALE_HANDOFFS.toLocaleString('en')} handoffs and ${SCALE_REVISIONS.toLocaleString('en')} revisions)`,
  );
  // A session of listeners for each round's streams, and one more for the fan-out's warm-up.
  const main = makeRoom(dir, 'main', { listenerSessions: ROUNDS * SESSIONS_PER_ROUND + 1 });
  // One full first page of handoffs (50) and of history (100) and no more: the large room's pages are as long.
  const small = makeRoom(dir, 'small', { handoffs: SMALL_PAGE, revisions: SMALL_PAGE });
  const large = makeRoom(dir, 'large', { handoffs: SCALE_HANDOFFS, revisions: SCALE_REVISIONS });
  const cold = makeRoom(dir, 'cold');
  const largeCounts = roomCounts(large.file);

  const serve = async (args: string[], env: Record<string, string> = {}) => {
    const served = await startServer(args, env);
    servers.push(served);
    return served;
  };
  const roomMemory = path.join(dir, 'room-memory.json');
  const sseMemory = path.join(dir, 'sse-memory.json');
  const roomProbe = probed(roomMemory);
  const sseProbe = probed(sseMemory);
  // No log, as the anchors keep none: what the log and the metrics cost is bench/observability.ts's to say.
  // Room for the 10,000 streams of the large fan-out, beside the default 10,000's few others.
  const room = await serve(
    [...roomProbe.args, ce, 'serve', main.file, ...SERVE_QUIETLY, '--max-streams', String(MANY_STREAMS + 100)],
    roomProbe.env,
  );
  const smallRoom = await serve([ce, 'serve', small.file, ...SERVE_QUIETLY]);
  const largeRoom = await serve([ce, 'serve', large.file, ...SERVE_QUIETLY]);
  const koa = await serve([program('koa-sqlite'), path.join(dir, 'koa.db')]);
  const sdk = await serve([program('mcp-sdk')]);
  const sse = await serve([...sseProbe.args, program('sse-broadcast')], sseProbe.env);
  const roomOrigin = originOf(room.line.mcp_url);
  const koaOrigin = `http://127.0.0.1:${koa.line.port}`;
  const sdkOrigin = `http://127.0.0.1:${sdk.line.port}`;
  const sseOrigin = `http://127.0.0.1:${sse.line.port}`;

  const scenarios = {
    koa: { kind: 'fixed', method: 'GET', path: '/tasks/ta_bench' },
    sdk: { kind: 'fixed', method: 'POST', path: '/mcp', request: toolCall('anything', 'ping', {}) },
    room: { kind: 'fixed', method: 'POST', path: '/mcp', request: taskGet(main.alice, main.taskId) },
    rest: {
      kind: 'fixed',
      method: 'GET',
      path: `/workspace/task?id=${main.taskId}`,
      request: { headers: { authorization: `Bearer ${main.alice}`, accept: 'application/json' }, body: '' },
    },
    small: { kind: 'fixed', method: 'POST', path: '/mcp', request: taskGet(small.alice, small.taskId) },
    large: { kind: 'fixed', method: 'POST', path: '/mcp', request: taskGet(large.alice, large.taskId) },
    smallList: { kind: 'fixed', method: 'POST', path: '/mcp', request: toolCall(small.alice, 'handoff_list', {}) },
    largeList: { kind: 'fixed', method: 'POST', path: '/mcp', request: toolCall(large.alice, 'handoff_list', {}) },
    smallHistory: {
      kind: 'fixed',
      method: 'POST',
      path: '/mcp',
      request: toolCall(small.alice, 'workspace_history', {}),
    },
    largeHistory: {
      kind: 'fixed',
      method: 'POST',
      path: '/mcp',
      request: toolCall(large.alice, 'workspace_history', {}),
    },
    writes: { kind: 'create-cancel', token: main.alice },
  } satisfies Record<string, LoadScenario>;

  // Each request answered as it should before anything is timed.
  await rpc(roomOrigin, taskGet(main.alice, main.taskId));
  await rpc(sdkOrigin, toolCall('anything', 'ping', {}));
  console.log('warming up');
  for (const [origin, scenario] of [
    [koaOrigin, scenarios.koa],
    [roomOrigin, scenarios.room],
    [roomOrigin, scenarios.rest],
    [sdkOrigin, scenarios.sdk],
    [originOf(smallRoom.line.mcp_url), scenarios.small],
    [originOf(largeRoom.line.mcp_url), scenarios.large],
  ] as const) {
    await load(origin, scenario, READ_CONNECTIONS, 1);
  }

  // Fan-out: the bare SSE broadcast, and listens on one task until it completes, to 1,000 and to 10,000 streams.
  const anchorFanOut = (count: number) => () =>
    fanOut(sse, sseMemory, {
      origin: sseOrigin,
      count,
      opens: [{ method: 'GET', path: '/stream', headers: {} }],
      openedWhen: ': open',
      trigger: { method: 'POST', path: '/broadcast', headers: {} },
      frameWhen: 'notifications/tasks',
    });
  const roomFanOut = (count: number, sessions: string[]) => async () => {
    const made = await rpc(
      roomOrigin,
      toolCall(main.alice, 'handoff_create', { summary: 'Listened to', assignee: 'bob' }),
    );
    const handoffId = made.structuredContent.handoff.handoff_id as string;
    const taskId = made.structuredContent.handoff.task_id as string;
    await rpc(roomOrigin, toolCall(main.bob, 'handoff_accept', { handoff_id: handoffId }));
    const listen = (token: string) => ({
      method: 'POST' as const,
      path: '/mcp',
      ...mcpPost('subscriptions/listen', { notifications: { taskIds: [taskId] } }, { token, tasks: true }),
    });
    const complete = toolCall(main.bob, 'handoff_complete', {
      handoff_id: handoffId,
      result: { content: [{ type: 'text', text: 'Done' }] },
    });
    return fanOut(room, roomMemory, {
      origin: roomOrigin,
      count,
      opens: sessions.map(listen),
      openedWhen: 'notifications/subscriptions/acknowledged',
      trigger: { method: 'POST', path: '/mcp', ...complete },
      frameWhen: 'notifications/tasks',
    });
  };
  // Each fan-out once, unmeasured, as the reads above: the first delivery in a process runs code not yet
  // compiled, and took the room twice (d)'s time, where the rounds after it took 1.0 to 1.5 times.
  await anchorFanOut(STREAMS)();
  await roomFanOut(STREAMS, main.listeners.slice(-1))();

  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Reads: an anchor, the room, the other anchor (which one first alternates).
    const [koaRate, [roomRead, sdkRate]] = await inTurn(
      round,
      () => readRate(koaOrigin, scenarios.koa, 'anchor (a)'),
      () =>
        inTurn(
          round,
          () => readRate(roomOrigin, scenarios.room, 'tasks/get'),
          () => readRate(sdkOrigin, scenarios.sdk, 'anchor (b)'),
        ),
    );
    // REST beside its own run of (a): the servers share one core, and a run just after the SDK server's finds it still busy.
    const [koaForRest, restRead] = await inTurn(
      round,
      () => readRate(koaOrigin, scenarios.koa, 'anchor (a)'),
      () => readRate(roomOrigin, scenarios.rest, 'GET /workspace/task'),
    );

    // Durable writes: the bare loop on the server core, and 16 clients writing through MCP.
    const [loop, writes] = await inTurn(
      round,
      () =>
        runToEnd<{ perSecond: number }>('server', [
          program('sqlite-loop'),
          path.join(dir, `loop-${round}.db`),
          String(SECONDS),
        ]),
      async () => {
        const result = await load(roomOrigin, scenarios.writes, WRITE_CONNECTIONS);
        await cancelLeftovers(roomOrigin, main);
        return result;
      },
    );

    const sessions = main.listeners.slice(round * SESSIONS_PER_ROUND, (round + 1) * SESSIONS_PER_ROUND);
    const [anchorFan, roomFan] = await inTurn(round, anchorFanOut(STREAMS), roomFanOut(STREAMS, sessions.slice(0, 1)));
    const [anchorFanMany, roomFanMany] = await inTurn(
      round,
      anchorFanOut(MANY_STREAMS),
      roomFanOut(MANY_STREAMS, sessions.slice(1)),
    );

    // Scale: the same reads in the small room and in the large one.
    const smallOrigin = originOf(smallRoom.line.mcp_url);
    const largeOrigin = originOf(largeRoom.line.mcp_url);
    const [smallRead, largeRead] = await inTurn(
      round,
      () => readRate(smallOrigin, scenarios.small, 'tasks/get (small room)'),
      () => readRate(largeOrigin, scenarios.large, 'tasks/get (large room)'),
    );
    const [smallList, largeList] = await inTurn(
      round,
      () => readRate(smallOrigin, scenarios.smallList, 'handoff_list (small room)'),
      () => readRate(largeOrigin, scenarios.largeList, 'handoff_list (large room)'),
    );
    const [smallHistory, largeHistory] = await inTurn(
      round,
      () => readRate(smallOrigin, scenarios.smallHistory, 'workspace_history (small room)'),
      () => readRate(largeOrigin, scenarios.largeHistory, 'workspace_history (large room)'),
    );

    // A room no one serves yet, and (e) on its sidecar: the median of STARTS starts of each, in turn.
    const firstAnswers = async (env: Record<string, string>): Promise<[number, number]> => {
      const room: number[] = [];
      const bare: number[] = [];
      for (let start = 0; start < STARTS; start++) {
        const [a, b] = await inTurn(
          round + start,
          () => firstAnswer([ce, 'serve', cold.file, '--port', '0', '--json'], cold, env),
          () => firstAnswer([program('first-answer'), sidecarPath(cold.file)], cold, env),
        );
        room.push(a);
        bare.push(b);
      }
      return [median(room), median(bare)];
    };
    const [firstAnswerMs, bareFirstAnswerMs] = await firstAnswers({});
    const [defaultFirstAnswerMs, bareDefaultFirstAnswerMs] = DEFAULT_START
      ? await firstAnswers(DEFAULT_START)
      : [null, null];

    const r: Round = {
      koa: koaRate,
      sdk: sdkRate,
      roomRead,
      restRead,
      koaForRest,
      loop: loop.perSecond,
      roomWrite: writes.perSecond,
      writeRefused: writes.refused + writes.non2xx + writes.errors,
      sseMs: anchorFan.ms,
      listenMs: roomFan.ms,
      sseFirstMs: anchorFan.firstMs,
      listenFirstMs: roomFan.firstMs,
      sseBytesPerStream: anchorFan.bytesPerStream,
      listenBytesPerStream: roomFan.bytesPerStream,
      listenRssPerStream: roomFan.rssPerStream,
      sseManyMs: anchorFanMany.ms,
      listenManyMs: roomFanMany.ms,
      listenManyBytesPerStream: roomFanMany.bytesPerStream,
      smallRead,
      largeRead,
      smallList,
      largeList,
      smallHistory,
      largeHistory,
      firstAnswerMs,
      bareFirstAnswerMs,
      defaultFirstAnswerMs,
      bareDefaultFirstAnswerMs,
    };
    rounds.push(r);
    console.log(
      `round ${round + 1}/${ROUNDS}: tasks/get ${r.roomRead.toFixed(0)}/s, REST ${r.restRead.toFixed(0)}/s, (a) ${r.koa.toFixed(0)}/s, (b) ${r.sdk.toFixed(0)}/s; ` +
        `writes ${r.roomWrite.toFixed(0)}/s, (c) ${r.loop.toFixed(0)}/s; fan-out ${r.listenMs.toFixed(1)} ms (first frame ${r.listenFirstMs.toFixed(1)}), (d) ${r.sseMs.toFixed(1)} ms (${r.sseFirstMs.toFixed(1)}); to 10,000 ${r.listenManyMs.toFixed(1)} ms, (d) ${r.sseManyMs.toFixed(1)} ms, ${(r.listenManyBytesPerStream / 1024).toFixed(1)} KiB/stream; ` +
        `${(r.listenBytesPerStream / 1024).toFixed(1)} KiB/stream; scale ${r.largeRead.toFixed(0)} vs ${r.smallRead.toFixed(0)}/s, list ${r.largeList.toFixed(0)} vs ${r.smallList.toFixed(0)}/s, history ${r.largeHistory.toFixed(0)} vs ${r.smallHistory.toFixed(0)}/s; first answer ${r.firstAnswerMs.toFixed(0)} ms, (e) ${r.bareFirstAnswerMs.toFixed(0)} ms` +
        (r.defaultFirstAnswerMs === null
          ? ''
          : `; by default ${r.defaultFirstAnswerMs.toFixed(0)} ms, (e) ${r.bareDefaultFirstAnswerMs!.toFixed(0)} ms`),
    );
  }

  const med = (f: (r: Round) => number) => median(rounds.map(f));
  const figures = {
    readA: med((r) => r.roomRead / r.koa),
    readB: med((r) => r.roomRead / r.sdk),
    restA: med((r) => r.restRead / r.koaForRest),
    writes: med((r) => r.roomWrite / r.loop),
    fanOut: med((r) => r.listenMs / r.sseMs),
    fanOutMany: med((r) => r.listenManyMs / r.sseManyMs),
    memory: med((r) => r.listenBytesPerStream) / 1024,
    memoryMany: med((r) => r.listenManyBytesPerStream) / 1024,
    scale: med((r) => r.largeRead / r.smallRead),
    scaleList: med((r) => r.largeList / r.smallList),
    scaleHistory: med((r) => r.largeHistory / r.smallHistory),
    firstAnswer: med((r) => r.firstAnswerMs),
    bareFirstAnswer: med((r) => r.bareFirstAnswerMs),
    defaultFirstAnswer: DEFAULT_START ? med((r) => r.defaultFirstAnswerMs!) : null,
    bareDefaultFirstAnswer: DEFAULT_START ? med((r) => r.bareDefaultFirstAnswerMs!) : null,
  };
  type Format = (value: number) => string;
  const ratio: Format = (value) => value.toFixed(2);
  const times =
    (digits: number): Format =>
    (value) =>
      `${value.toFixed(digits)} ×`;
  const inKiB: Format = (value) => `${value.toFixed(1)} KiB`;
  const inMs: Format = (value) => `${value.toFixed(0)} ms`;
  /** A row of the table: its goal is one bound, shown in the figure's own format and checked against it. */
  const row = (what: string, value: number, format: Format, [sign, bound]: ['≥' | '≤', number], was = '') => [
    what,
    format(value),
    `${sign} ${format(bound)}`,
    was,
    (sign === '≥' ? value >= bound : value <= bound) ? 'yes' : '**no**',
  ];
  const rows = [
    row(
      '`tasks/get` over MCP (auth, headers, validation, SQLite read) ÷ (a) Koa + @koa/router + better-sqlite3 point read',
      figures.readA,
      ratio,
      ['≥', 0.75],
      '0.39',
    ),
    row(
      'the same ÷ (b) the official MCP SDK v2 server with one trivial tool',
      figures.readB,
      times(1),
      ['≥', 6],
      '3.7 ×',
    ),
    row('the same task read over REST (`GET /workspace/task?id=…`, a session token) ÷ (a)', figures.restA, ratio, [
      '≥',
      0.9,
    ]),
    row(
      `durable writes over MCP (\`handoff_create\` then \`tasks/cancel\`, ${WRITE_CONNECTIONS} concurrent clients) ÷ (c) a bare better-sqlite3 loop of one-row transactions, WAL, \`synchronous=FULL\``,
      figures.writes,
      ratio,
      ['≥', 1],
      '0.41',
    ),
    row(
      `${STREAMS.toLocaleString('en')} \`subscriptions/listen\` streams on one task: last \`notifications/tasks\` after the completing call ÷ (d) bare \`node:http\` SSE broadcast to ${STREAMS.toLocaleString('en')} streams`,
      figures.fanOut,
      times(2),
      ['≤', 1],
      '0.86 ×',
    ),
    row(
      `the same to ${MANY_STREAMS.toLocaleString('en')} streams (ten sessions; the listeners in ${MANY_STREAMS / STREAMS_PER_WORKER} processes) ÷ (d) to ${MANY_STREAMS.toLocaleString('en')}`,
      figures.fanOutMany,
      times(2),
      ['≤', 1.5],
    ),
    row(
      'memory per idle listen stream (JavaScript heap and external memory of `ce serve` after a full collection, before and after), 1,000 streams',
      figures.memory,
      inKiB,
      ['≤', 10],
      '10.2 KiB',
    ),
    row(`the same with ${MANY_STREAMS.toLocaleString('en')} streams`, figures.memoryMany, inKiB, ['≤', 10]),
    row(
      `\`tasks/get\` in a room with ${largeCounts.handoffs.toLocaleString('en')} handoffs, ${largeCounts.revisions.toLocaleString('en')} revisions and ${largeCounts.events.toLocaleString('en')} events ÷ the same in a room of ${SMALL_PAGE} handoffs and ${SMALL_PAGE} revisions`,
      figures.scale,
      ratio,
      ['≥', 0.9],
      '1.11 (10,001 handoffs)',
    ),
    row('the same for `handoff_list`, its first page (the newest 50)', figures.scaleList, ratio, ['≥', 0.9]),
    row('the same for `workspace_history`, its first page (the oldest 100 entries)', figures.scaleHistory, ratio, [
      '≥',
      0.9,
    ]),
    row(
      `\`ce serve\`: from start to its first answered request (\`tasks/get\`)${DEFAULT_START ? ", with this machine's `NODE_EXTRA_CA_CERTS`, a CA bundle node reads at every start" : ''}; (e) a bare \`node:http\` + better-sqlite3 server of the same sidecar, started the same way, answers in ${inMs(figures.bareFirstAnswer)}`,
      figures.firstAnswer,
      inMs,
      ['≤', 200],
      '220 ms',
    ),
    ...(figures.defaultFirstAnswer === null
      ? []
      : [
          row(
            `the same, node started as it is by default (\`NODE_EXTRA_CA_CERTS\` unset); (e) answers in ${inMs(figures.bareDefaultFirstAnswer!)}`,
            figures.defaultFirstAnswer,
            inMs,
            ['≤', 200],
          ),
        ]),
  ];
  const table = `| what | today | goal | was | met |
| --- | --- | --- | --- | --- |
${rows.map((row) => `| ${row.join(' | ')} |`).join('\n')}`;
  const rate = (n: number) => n.toFixed(0);
  const ms = (n: number) => n.toFixed(1);
  const kib = (n: number) => (n / 1024).toFixed(1);
  const body = `## ce serve beside its anchors (\`npm run bench\`)

${new Date().toISOString().slice(0, 10)}, ${machine()}, load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end (other programs share the cores; the ratios are what to read). ${ROUNDS} rounds of ${SECONDS} s per load run; ${
    pinning
      ? `servers pinned to core ${pinning.server} and the load generator (autocannon, its own process) to core ${pinning.load} with \`taskset\``
      : 'not pinned (fewer than two cores, or no taskset)'
  }. Each figure is the median of the per-round ratios; each round runs the anchor and the room one after the other, the anchor first in odd rounds and the room first in even ones (for reads: (a), the room, (b), then (b), the room, (a)). Before the first round, unmeasured, each server of the reads answers them for a second, and (d) and the room each do one fan-out to 1,000 streams: the first of each in a process runs code not yet compiled.

${table}

<details><summary>How it runs</summary>

- Servers: \`${shown('server', [ce, 'serve', 'ROOM.md', '--port', '0', '--json', '--log-level', 'silent'])}\` (no log, as the anchors keep none; three rooms: the main one, a small one (${SMALL_PAGE} handoffs and ${SMALL_PAGE} accepted proposals: one full first page of each), one with ${SCALE_HANDOFFS.toLocaleString('en')} cancelled handoffs and ${SCALE_REVISIONS.toLocaleString('en')} accepted proposals, seeded with the engine beforehand); anchors built from \`bench/anchors/\` with esbuild: \`${shown('server', [program('koa-sqlite'), 'anchor.db'])}\`, \`${shown('server', [program('mcp-sdk')])}\`, \`${shown('server', [program('sse-broadcast')])}\`, \`${shown('server', [program('first-answer'), 'ROOM.md.commonroom.db'])}\`; the loop \`${shown('server', [program('sqlite-loop'), 'loop.db', String(SECONDS)])}\`.
- Load: \`${shown('load', [program('load-worker'), 'CONFIG'])}\`, autocannon's API, ${READ_CONNECTIONS} connections for reads (\`GET /tasks/:id\` on (a); \`tools/call\` of \`ping\` on (b); \`tasks/get\` with a session token, the routing headers and \`_meta\` on the room, and the same task by REST, \`GET /workspace/task?id=…\` with the token) and ${WRITE_CONNECTIONS} for writes (each connection: \`handoff_create\` with the Tasks extension, then \`tasks/cancel\` of its task; every answer counts as one durable write).
- Fan-out: \`${shown('load', ['--expose-gc', program('listeners-worker'), 'CONFIG'])}\` opens ${STREAMS.toLocaleString('en')} streams, then ${MANY_STREAMS.toLocaleString('en')} from ${MANY_STREAMS / STREAMS_PER_WORKER} such processes (on the room: \`subscriptions/listen\` with \`taskIds\` of a task bob has accepted, as alice, 1,000 streams a session; the room served with \`--max-streams ${MANY_STREAMS + 100}\`), waits until each is acknowledged, collects its own garbage (a full collection: what opening the streams left, more for the room's listens than for (d)'s GETs, is not collected while the frame is timed), then times from sending the completing call (bob's \`handoff_complete\`; on (d) \`POST /broadcast\`) to the last stream's frame in any process (times of several processes compared as \`performance.timeOrigin + performance.now()\`, one machine's clock); the rounds' table gives in brackets the time to the first stream's frame, which is the server's lead: what the room does before it may write (the completing call read, checked and run, committed and fsynced), beside (d)'s nothing.${raisedFiles ? ` The bench's processes run under \`prlimit --nofile=${raisedFiles}\` (this machine's hard limit on open files is lower).` : ''} Memory per stream is the server's JavaScript heap and external memory (\`heapUsed + external\`) after a full garbage collection once the streams sat idle for 1 s after the frame (measured before it, that collection came just before the timed delivery and slowed the room's), less the same before they opened, over ${STREAMS.toLocaleString('en')}: both servers of the fan-out run with \`--expose-gc --import memory-probe.js\` (\`bench/lib/memory-probe.ts\`: on SIGUSR2 it collects and writes \`process.memoryUsage()\` to a file). Resident memory per stream is in the rounds too; the allocator keeps or returns pages as it likes, so it wanders, below zero at times.
- First answer: \`ce serve\` as a user starts it (its log at info) on a room no one serves, from spawning it to the answer of a \`tasks/get\` sent as soon as it printed its address; (e) the same on that room's sidecar, which one first alternating; ${STARTS} starts of each a round, the round's figure their median.${DEFAULT_START ? ` This machine sets \`NODE_EXTRA_CA_CERTS\`, which node reads at every start before any program's code, so both are measured twice, with it and with it unset (\`NODE_EXTRA_CA_CERTS=\`), as node starts by default.` : ''}

</details>

<details><summary>Every round</summary>

| round | tasks/get /s | REST /s | (a) beside REST /s | (a) /s | (b) /s | writes /s | (c) /s | writes refused | fan-out ms (first frame) | (d) ms (first frame) | KiB/stream | (d) KiB/stream | RSS KiB/stream | 10,000: ms | (d) ms | KiB/stream | small room /s | large room /s | list, small /s | list, large /s | history, small /s | history, large /s | first answer ms | (e) ms |${DEFAULT_START ? ' by default ms | (e) by default ms |' : ''}
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |${DEFAULT_START ? ' --- | --- |' : ''}
${rounds
  .map(
    (r, i) =>
      `| ${i + 1} | ${rate(r.roomRead)} | ${rate(r.restRead)} | ${rate(r.koaForRest)} | ${rate(r.koa)} | ${rate(r.sdk)} | ${rate(r.roomWrite)} | ${rate(r.loop)} | ${r.writeRefused} | ${ms(r.listenMs)} (${ms(r.listenFirstMs)}) | ${ms(r.sseMs)} (${ms(r.sseFirstMs)}) | ${kib(r.listenBytesPerStream)} | ${kib(r.sseBytesPerStream)} | ${kib(r.listenRssPerStream)} | ${ms(r.listenManyMs)} | ${ms(r.sseManyMs)} | ${kib(r.listenManyBytesPerStream)} | ${rate(r.smallRead)} | ${rate(r.largeRead)} | ${rate(r.smallList)} | ${rate(r.largeList)} | ${rate(r.smallHistory)} | ${rate(r.largeHistory)} | ${r.firstAnswerMs.toFixed(0)} | ${r.bareFirstAnswerMs.toFixed(0)} |${r.defaultFirstAnswerMs === null ? '' : ` ${r.defaultFirstAnswerMs.toFixed(0)} | ${r.bareDefaultFirstAnswerMs!.toFixed(0)} |`}`,
  )
  .join('\n')}

</details>`;
  writeSection('serve', body);
  console.log(`\n${table}\n\nwritten to BENCHMARKS.md`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
}
