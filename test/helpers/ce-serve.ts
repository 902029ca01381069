// A real `ce serve FILE --port 0 --json` (node bin/ce.js, as in
// test/cli/serve.test.ts): waits for its one JSON line, stops it with a
// signal. A test kills what it left running (onTestFinished(served.kill)).
// Options choose the port (a restart on the same address), put node flags
// before bin/ce.js (a preloaded fixture), add to the child's environment and
// limit its open files.
// roomOperator(file) is the local operator's REST door to the served room.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readRuntimeFile } from '../../src/http/runtime-file.js';
import { CE_BIN } from './run-ce.js';
import { keepSuiteLog } from './suite-logs.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));

export interface ServedRoom {
  child: ChildProcess;
  pid: number;
  mcpUrl: string;
  restUrl: string;
  /** Everything the process printed on stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (null after a signal that killed it). */
  exited: Promise<number | null>;
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, when it still runs. */
  kill(): void;
}

export interface CeServeOptions {
  /** Node flags before bin/ce.js: `['--import', 'tsx', '--import', fixture]`. */
  nodeArgs?: string[];
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** The port to listen on (a restart on the same address); any free one by default. */
  port?: number;
  /** More options of ce serve: `['--host', '127.0.0.2', '--tls-cert', cert, '--tls-key', key]`. */
  args?: string[];
  /** The process's limit on open files, set by the shell (`ulimit -n`) before it becomes node. */
  openFiles?: number;
}

/** What a test reads of stderr when the helper chose the log level: the lines above info (warnings, errors). */
const aboveInfo = (text: string): string =>
  text
    .split(/(?<=\n)/)
    .filter((line) => !line.startsWith('{"level":30,'))
    .join('');

export async function ceServe(file: string, options: CeServeOptions = {}): Promise<ServedRoom> {
  const ownLevel = options.args?.includes('--log-level') === true;
  const args = [
    ...(options.nodeArgs ?? []),
    CE_BIN,
    'serve',
    file,
    '--port',
    String(options.port ?? 0),
    '--json',
    // Its log at info goes to the suite's logs (suite-logs.ts); stderr() is what it says besides, unless asked.
    ...(ownLevel ? [] : ['--log-level', 'info', '--log-format', 'json']),
    ...(options.args ?? []),
  ];
  // The shell execs node in its own place: the limit is node's, and the pid the same.
  const [command, argv] =
    options.openFiles === undefined
      ? [process.execPath, args]
      : ['/bin/sh', ['-c', `ulimit -n ${options.openFiles} && exec "$0" "$@"`, process.execPath, ...args]];
  const child = spawn(command, argv, {
    cwd: repo,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      keepSuiteLog(stderr);
      resolve(code);
    }),
  );
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  // Waits without expect.poll, so a room can be started in beforeAll too.
  let timer: NodeJS.Timeout | undefined;
  const served = await Promise.race([
    new Promise<boolean>((resolve) => child.stdout!.on('data', () => stdout.includes('\n') && resolve(true))),
    exited.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 30_000))),
  ]);
  clearTimeout(timer);
  if (!served) {
    kill();
    throw new Error(`ce serve did not serve within 30 s, or exited first; stderr:\n${stderr}`);
  }
  const line = JSON.parse(stdout.split('\n')[0]!) as { mcp_url: string; rest_url: string; pid: number };
  return {
    child,
    pid: line.pid,
    mcpUrl: line.mcp_url,
    restUrl: line.rest_url,
    stderr: () => (ownLevel ? stderr : aboveInfo(stderr)),
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill,
  };
}

/** The local operator's REST door to a served room: its runtime file's address and operator token. */
export interface RoomOperator {
  baseUrl: string;
  mcpUrl: string;
  /** One REST call as the operator, or as `participant` (the Commonroom-Participant header). */
  rest(method: string, pathname: string, body?: unknown, participant?: string): Promise<{ status: number; body: any }>;
  addParticipant(name: string): Promise<void>;
  /** A new session's token. */
  session(participant: string, capabilities: string[]): Promise<string>;
}

export function roomOperator(file: string): RoomOperator {
  const info = readRuntimeFile(file);
  if (!info) throw new Error(`no room process serves ${file}`);
  const rest: RoomOperator['rest'] = async (method, pathname, body, participant) => {
    const response = await fetch(`${info.base_url}${pathname}`, {
      method,
      headers: {
        authorization: `Bearer ${info.operator_token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(participant !== undefined ? { 'commonroom-participant': encodeURIComponent(participant) } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const ok = async (answer: Promise<{ status: number; body: any }>) => {
    const { status, body } = await answer;
    if (status >= 300) throw new Error(`the room refused: ${status} ${JSON.stringify(body)}`);
    return body;
  };
  return {
    baseUrl: info.base_url,
    mcpUrl: info.mcp_url,
    rest,
    async addParticipant(name) {
      await ok(rest('POST', '/workspace/participants', { name }));
    },
    async session(participant, capabilities) {
      return (await ok(rest('POST', '/workspace/sessions', { participant, capabilities }))).token as string;
    },
  };
}
