// Building the bench's own programs (anchors and workers) and running them:
// servers on one core, load on the other, when the machine has two or more
// and taskset is there; unpinned otherwise, and the report says so.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { root } from '../report.js';

/** Where the built anchors and workers go: inside node_modules, so their packages resolve. */
const out = path.join(root, 'node_modules', '.cache', 'ce-bench');

export const pinning: { server: string; load: string } | null =
  cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0 ? { server: '0', load: '1' } : null;

/** Pins this process (all its threads) to the load core: what it runs itself is client work. */
export function pinSelfToLoadCore(): void {
  if (pinning) spawnSync('taskset', ['-a', '-p', '-c', pinning.load, String(process.pid)], { stdio: 'ignore' });
}

/** The bench's programs, ES modules but for those in COMMONJS_PROGRAMS. */
const PROGRAMS: Record<string, string> = {
  'koa-sqlite': 'bench/anchors/koa-sqlite.ts',
  'mcp-sdk': 'bench/anchors/mcp-sdk.ts',
  'sqlite-loop': 'bench/anchors/sqlite-loop.ts',
  'sse-broadcast': 'bench/anchors/sse-broadcast.ts',
  'load-worker': 'bench/lib/load-worker.ts',
  'listeners-worker': 'bench/lib/listeners-worker.ts',
  'memory-probe': 'bench/lib/memory-probe.ts',
};
/** (e) starts as bin/ce.js does, a CommonJS program: node sets up no loader of modules for it. */
const COMMONJS_PROGRAMS: Record<string, string> = { 'first-answer': 'bench/anchors/first-answer.ts' };

const entries = (programs: Record<string, string>) =>
  Object.fromEntries(Object.entries(programs).map(([name, file]) => [name, path.join(root, file)]));

export async function buildPrograms(): Promise<void> {
  const options = {
    outdir: out,
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  } as const;
  await build({ ...options, entryPoints: entries(PROGRAMS), format: 'esm' });
  await build({
    ...options,
    entryPoints: entries(COMMONJS_PROGRAMS),
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
  });
}

export const program = (name: string): string =>
  path.join(out, `${name}.${Object.hasOwn(COMMONJS_PROGRAMS, name) ? 'cjs' : 'js'}`);

/** Open files a bench process may need: 10,000 streams and their sockets, with room to spare. */
const FILES = 16_384;

/**
 * This machine's hard limit on open files; node raises its own soft limit
 * to it. When it is lower than FILES, the bench's processes are started
 * under `prlimit` with FILES (root may raise a hard limit): the bench's
 * processes, never the product.
 */
const limits = existsSync('/proc/self/limits') ? readFileSync('/proc/self/limits', 'utf8') : '';
const hardFileLimit = Number(/^Max open files\s+\S+\s+(\S+)/m.exec(limits)?.[1] ?? FILES);
const raisable = hardFileLimit < FILES && spawnSync('prlimit', [`--nofile=${FILES}:${FILES}`, 'true']).status === 0;
/** The open-file limit the bench's processes run under when it had to be raised (Linux, with prlimit), else null. */
export const raisedFiles = raisable ? FILES : null;
const raiseFiles = raisable ? ['prlimit', `--nofile=${FILES}:${FILES}`] : [];
/** Why 10,000 streams cannot be opened here, or null. */
export const fileLimitProblem =
  hardFileLimit < FILES && !raisable
    ? `this machine lets a process open ${hardFileLimit} files and the bench may not raise it; 10,000 streams need ${FILES} (raise the hard limit: ulimit -Hn, or LimitNOFILE=)`
    : null;

/** `node ARGS`, pinned to `core` when pinning is on. */
export function spawnNode(
  core: 'server' | 'load',
  args: string[],
  options: { env?: Record<string, string>; stderr?: number } = {},
): ChildProcess {
  const [command, ...argv] = [
    ...raiseFiles,
    ...(pinning ? ['taskset', '-c', pinning[core]] : []),
    process.execPath,
    ...args,
  ];
  const stdio = ['pipe', 'pipe', options.stderr ?? 'pipe'] as const;
  return spawn(command!, argv, { cwd: root, env: { ...process.env, ...options.env }, stdio: [...stdio] });
}

/** Node flags that let the bench ask a server for its memory after a full collection (memory-probe.ts). */
export const probed = (file: string): { args: string[]; env: Record<string, string> } => ({
  args: ['--expose-gc', '--import', pathToFileURL(program('memory-probe')).href],
  env: { BENCH_MEMORY_FILE: file },
});

/** The server's memory after a full collection. */
export async function probeMemory(child: ChildProcess, file: string): Promise<NodeJS.MemoryUsage> {
  rmSync(file, { force: true });
  child.kill('SIGUSR2');
  for (let waited = 0; waited < 5000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as NodeJS.MemoryUsage;
      } catch {
        // still being written
      }
    }
  }
  throw new Error('the server did not report its memory');
}

/** The CPU time all of a process's threads have had, in µs (each thread's schedstat under /proc/PID/task, in ns). */
export const cpuMicros = (pid: number): number =>
  readdirSync(`/proc/${pid}/task`).reduce(
    (sum, task) => sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1000,
    0,
  );

/** How a spawned program is written in the report. */
export const shown = (core: 'server' | 'load', args: string[]): string =>
  `${pinning ? `taskset -c ${pinning[core]} ` : ''}node ${args.map((a) => path.relative(root, a) || a).join(' ')}`;

/** `ce serve`'s flags in the benches: any free port, its first line as JSON, and no log (the anchors keep none). */
export const SERVE_QUIETLY = ['--port', '0', '--json', '--log-level', 'silent'];

export interface Served {
  child: ChildProcess;
  /** The first line the server printed, parsed. */
  line: Record<string, any>;
  stop(): Promise<void>;
}

/** Starts a server that prints one JSON line once it listens; its stderr into the file `stderrFd` when given. */
export async function startServer(
  args: string[],
  env: Record<string, string> = {},
  stderrFd?: number,
): Promise<Served> {
  const child = spawnNode('server', args, { env, ...(stderrFd === undefined ? {} : { stderr: stderrFd }) });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const line = await firstLine(child, () => stderr);
  return {
    child,
    line: JSON.parse(line) as Record<string, any>,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function firstLine(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before its first line: ${stderr()}`)));
  });
}

/** Runs a program to its end; its last stdout line is JSON. */
export function runToEnd<T>(core: 'server' | 'load', args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawnNode(core, args);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as T);
    });
  });
}
