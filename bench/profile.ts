// Where ce serve spends its time answering tasks/get: runs the compiled
// build (dist/) under `node --cpu-prof`, loads it with autocannon on the
// other core, and prints the functions with the most self time, and the
// share of each part of the stack (`npm run bench:profile`); a line of the
// bundle counts for the source file it came from. PROFILE_REST=1 profiles
// the same task read over REST, PROFILE_WRITES=1 the bench's durable writes
// (16 clients, handoff_create then tasks/cancel). PROFILE_SECONDS (10) sets
// the load's length, PROFILE_ARGS adds flags to ce serve (`--log-level
// silent`, `--metrics`); the profile is kept in .tmp/.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LoadConfig, LoadResult } from './lib/load-worker.js';
import { taskGet } from './lib/mcp.js';
import { buildPrograms, pinSelfToLoadCore, program, runToEnd, startServer } from './lib/processes.js';
import { makeRoom } from './lib/rooms.js';
import { READ_CONNECTIONS, WRITE_CONNECTIONS } from './lib/runs.js';
import { root } from './report.js';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
/** The load profiled: PROFILE_WRITES=1, PROFILE_REST=1, or tasks/get over MCP. */
const LOAD =
  process.env.PROFILE_WRITES === '1' ? 'writes' : process.env.PROFILE_REST === '1' ? 'REST task reads' : 'tasks/get';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount: number;
  children?: number[];
}

/** Per bundle file, where each bundled source file begins: esbuild marks it with a `// path` line. */
const bundleMarks = new Map<string, [number, string][]>();
/** ce serve's bundle has neither those lines nor spaces: its source map, which the build leaves beside the cache. */
const serveBundle = path.join(root, 'dist', 'chunks', 'serve.cjs');
let serveMap: SourceMap | undefined;

/** The source file a place in a bundle of dist/ came from (`src/http/send.ts`, `node_modules/pino/pino.js`). */
function sourceOf(file: string, line: number, column: number): string | null {
  if (!file.startsWith(path.join(root, 'dist') + path.sep)) return null;
  if (file === serveBundle) {
    serveMap ??= new SourceMap(
      JSON.parse(readFileSync(path.join(root, 'node_modules', '.cache', 'ce-build', 'serve.cjs.map'), 'utf8')),
    );
    const entry = serveMap.findEntry(line, column) as { originalSource?: string };
    // Its sources are named from dist/chunks/.
    return entry.originalSource ? path.relative(root, path.resolve(path.dirname(file), entry.originalSource)) : null;
  }
  let marks = bundleMarks.get(file);
  if (!marks) {
    marks = [];
    for (const [at, text] of readFileSync(file, 'utf8').split('\n').entries()) {
      const marked = /^\/\/ ((?:src|generated|node_modules|scripts)\/\S+)$/.exec(text);
      if (marked) marks.push([at, marked[1]!]);
    }
    bundleMarks.set(file, marks);
  }
  let source: string | null = null;
  for (const [at, name] of marks) {
    if (at > line) break;
    source = name;
  }
  return source;
}

const nameOf = ({ callFrame: { functionName, url, lineNumber, columnNumber } }: ProfileNode): string => {
  const file = url.replace(/^file:\/\//, '');
  if (!file) return `${functionName || '(anonymous)'} (native)`;
  const source = sourceOf(file, lineNumber, columnNumber);
  return `${functionName || '(anonymous)'} ${source ? `${source} ` : ''}${path.relative(root, file)}:${lineNumber + 1}:${columnNumber + 1}`;
};

/** What part of the program a file is: our code by folder (a bundle's lines by the source they came from), a package, node. */
function partOf(file: string, line: number, column: number): string {
  const source = sourceOf(file, line, column) ?? file;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return `package ${pkg[1]}`;
  if (source.startsWith('node:')) return 'node internals';
  const relative = path.isAbsolute(source) ? path.relative(root, source) : source;
  return relative.startsWith('src/') ? relative.split('/').slice(0, 2).join('/') : relative;
}

/**
 * Self time per function and per part (our code by folder of src/, each
 * generated file, each package, node itself), and total time per function
 * (itself and what it calls).
 */
export function summarize(profile: { nodes: ProfileNode[] }): {
  functions: [string, number][];
  parts: [string, number][];
  inclusive: [string, number][];
} {
  const total = profile.nodes.reduce((sum, node) => sum + node.hitCount, 0);
  const byFunction = new Map<string, number>();
  const byPart = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  for (const node of profile.nodes) {
    if (node.hitCount === 0) continue;
    const names = new Set<string>();
    for (let at: ProfileNode | undefined = node; at; at = parent.get(at.id)) names.add(nameOf(at));
    for (const name of names) inclusive.set(name, (inclusive.get(name) ?? 0) + node.hitCount);
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    const file = url.replace(/^file:\/\//, '');
    const name = nameOf(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.hitCount);
    const part = !file
      ? functionName.startsWith('(')
        ? functionName
        : '(native)'
      : partOf(file, lineNumber, columnNumber);
    byPart.set(part, (byPart.get(part) ?? 0) + node.hitCount);
  }
  const share = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, (100 * v) / total] as [string, number]);
  return { functions: share(byFunction), parts: share(byPart), inclusive: share(inclusive) };
}

pinSelfToLoadCore();
await buildPrograms();
const dir = mkdtempSync(path.join(tmpdir(), 'ce-profile-'));
const profiles = path.join(root, '.tmp', 'profiles');
mkdirSync(profiles, { recursive: true });
try {
  const room = makeRoom(dir, 'main');
  const started = Date.now();
  const served = await startServer([
    '--cpu-prof',
    `--cpu-prof-dir=${profiles}`,
    path.join(root, 'bin', 'ce.js'),
    'serve',
    room.file,
    '--port',
    '0',
    '--json',
    ...(process.env.PROFILE_ARGS ?? '').split(' ').filter(Boolean),
  ]);
  const origin = new URL(served.line.mcp_url).origin;
  const config: LoadConfig = {
    origin,
    seconds: SECONDS,
    connections: LOAD === 'writes' ? WRITE_CONNECTIONS : READ_CONNECTIONS,
    scenario:
      LOAD === 'writes'
        ? { kind: 'create-cancel', token: room.alice }
        : LOAD === 'REST task reads'
          ? {
              kind: 'fixed',
              method: 'GET',
              path: `/workspace/task?id=${room.taskId}`,
              request: { headers: { authorization: `Bearer ${room.alice}`, accept: 'application/json' }, body: '' },
            }
          : { kind: 'fixed', method: 'POST', path: '/mcp', request: taskGet(room.alice, room.taskId) },
  };
  const result = await runToEnd<LoadResult>('load', [program('load-worker'), JSON.stringify(config)]);
  await served.stop();
  const file = readdirSync(profiles)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(profiles, name))
    .find(
      (name) =>
        Number(/\.(\d+)\.\d+\.cpuprofile$/.exec(name)?.[1] ?? 0) >= 0 &&
        readFileSync(name).length > 0 &&
        name.includes(`.${served.child.pid}.`),
    );
  if (!file) throw new Error(`no profile of pid ${served.child.pid} in ${profiles}`);
  const { functions, parts, inclusive } = summarize(JSON.parse(readFileSync(file, 'utf8')));
  console.log(
    `${LOAD}: ${result.perSecond.toFixed(0)}/s over ${SECONDS} s (${result.non2xx} non-2xx); profile ${path.relative(root, file)} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
  console.log('\nself time by part:');
  for (const [part, pct] of parts.slice(0, 20)) console.log(`${pct.toFixed(1).padStart(6)} %  ${part}`);
  console.log('\ntotal time by function (itself and what it calls):');
  for (const [name, pct] of inclusive.filter(([name]) => !name.startsWith('(root)')).slice(0, 60)) {
    console.log(`${pct.toFixed(1).padStart(6)} %  ${name}`);
  }
  console.log('\nself time by function:');
  for (const [name, pct] of functions.slice(0, 40)) console.log(`${pct.toFixed(1).padStart(6)} %  ${name}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
