// A real `ce serve FILE --port 0 --json` (node bin/ce.js, as in
// test/cli/serve.test.ts): waits for its one JSON line, stops it with a
// signal. A test kills what it left running (onTestFinished(served.kill)).
// Options put node flags before bin/ce.js (a preloaded fixture) and add to
// the child's environment.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CE_BIN } from './run-ce.js';

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
}

export async function ceServe(file: string, options: CeServeOptions = {}): Promise<ServedRoom> {
  const args = [...(options.nodeArgs ?? []), CE_BIN, 'serve', file, '--port', '0', '--json'];
  const child = spawn(process.execPath, args, {
    cwd: repo,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  // A plain wait, not expect.poll: a suite may start its room in beforeAll.
  const deadline = Date.now() + 30_000;
  while (!stdout.includes('\n') && child.exitCode === null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!stdout.includes('\n')) kill();
  if (!stdout.includes('\n')) throw new Error(`ce serve exited before it served; stderr:\n${stderr}`);
  const line = JSON.parse(stdout.split('\n')[0]!) as { mcp_url: string; rest_url: string; pid: number };
  return {
    child,
    pid: line.pid,
    mcpUrl: line.mcp_url,
    restUrl: line.rest_url,
    stderr: () => stderr,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill,
  };
}
