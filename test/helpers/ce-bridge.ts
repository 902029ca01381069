// `ce bridge` as a host launches it (node bin/ce.js bridge ..., stdio
// pipes): through the official StdioClientTransport, or as a bare child
// whose stdout is recorded byte for byte and checked line by line. Also the
// room the bridge tests serve: a file with participants and sessions made
// with the engine.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect } from 'vitest';
import type { Capability } from '../../generated/types.js';
import { addParticipant, createSession, LOCAL_OPERATOR, openRoom, syncArtifact } from './engine.js';
import { eventually } from './mcp-clients.js';
import { tempDir } from './room.js';
import { CE_BIN } from './run-ce.js';
import { PROTOCOL_VERSION, TASKS } from './server.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** How a host starts the bridge: the arguments after `ce`, and the environment it adds. */
export interface BridgeLaunch {
  args: string[];
  env: Record<string, string>;
}

/** The remote form: the room's address, the session token in CE_TOKEN. */
export const bridgeByUrl = (mcpUrl: string, token: string): BridgeLaunch => ({
  args: ['bridge', '--url', mcpUrl],
  env: { CE_TOKEN: token },
});

/** The local form: the room file, and the participant the operator token acts as. */
export const bridgeByFile = (file: string, participant: string): BridgeLaunch => ({
  args: ['bridge', file, '--participant', participant],
  env: {},
});

export interface StdioBridge {
  transport: StdioClientTransport;
  /** What the bridge wrote on stderr so far. */
  stderr(): string;
}

/** The official stdio transport, set to launch the bridge (it starts it on connect). */
export function stdioBridge(launch: BridgeLaunch): StdioBridge {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CE_BIN, ...launch.args],
    env: launch.env,
    cwd: repo,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { transport, stderr: () => stderr };
}

/** A JSON value as the tests read it from the bridge. */
export type Line = any;

/** The bridge as a bare child process: lines in, every byte of stdout recorded. */
export interface BridgeProcess {
  child: ChildProcess;
  /** Everything written on stdout, exactly. */
  stdout(): string;
  stderr(): string;
  /** The complete lines of stdout, parsed (a line that is not JSON fails the test that reads it). */
  messages(): Line[];
  /** Writes one line to stdin: a message, or a string as it is. */
  send(message: unknown): void;
  /** The first message matching, waiting for it. */
  next(what: string, match: (message: Line) => boolean, timeoutMs?: number): Promise<Line>;
  /** The answer (result or error) to the request with this id. */
  answer(id: string | number, timeoutMs?: number): Promise<Line>;
  /** Closes stdin, and resolves with the exit code (null after a signal). */
  end(): Promise<number | null>;
  exited: Promise<number | null>;
  kill(): void;
}

export function spawnBridge(launch: BridgeLaunch): BridgeProcess {
  const child = spawn(process.execPath, [CE_BIN, ...launch.args], {
    cwd: repo,
    env: { ...process.env, ...launch.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const messages = (): Line[] =>
    stdout
      .split('\n')
      .slice(0, -1)
      .map((line) => JSON.parse(line));
  const next = (what: string, match: (message: Line) => boolean, timeoutMs = 15_000) =>
    eventually(what, () => messages().find(match), timeoutMs);
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    messages,
    send(message) {
      child.stdin!.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    },
    next,
    answer: (id, timeoutMs) =>
      next(
        `the answer to ${JSON.stringify(id)}`,
        (m) => m.id === id && ('result' in m || 'error' in m) && !('method' in m),
        timeoutMs,
      ),
    end() {
      child.stdin!.end();
      return exited;
    },
    exited,
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** A 2026-07-28 request as a stdio client writes it: the metadata inline in _meta. */
export function request(
  id: string | number,
  method: string,
  params: Record<string, unknown> = {},
  options: { tasks?: boolean } = {},
) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': options.tasks ? { extensions: { [TASKS]: {} } } : {},
        'io.modelcontextprotocol/clientInfo': { name: 'bridge-test', version: '1.0.0' },
      },
    },
  };
}

/** Every line of `stdout` is one JSON-RPC 2.0 response or notification; they are returned parsed. */
export function jsonRpcLines(stdout: string): Line[] {
  expect(stdout.endsWith('\n'), 'stdout ends with a whole line').toBe(true);
  return stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      let message: Line;
      expect(() => (message = JSON.parse(line)), line).not.toThrow();
      expect(message, line).toMatchObject({ jsonrpc: '2.0' });
      if ('method' in message) {
        // A notification (a listen's frame): no id.
        expect(Object.keys(message).sort(), line).toEqual(['jsonrpc', 'method', 'params']);
        expect(typeof message.method, line).toBe('string');
      } else {
        expect(Object.keys(message).sort(), line).toSatisfy(
          (keys: string[]) => keys.join() === 'error,id,jsonrpc' || keys.join() === 'id,jsonrpc,result',
        );
        expect(message.id === null || ['string', 'number'].includes(typeof message.id), line).toBe(true);
        if ('error' in message) {
          expect(Number.isInteger(message.error.code), line).toBe(true);
          expect(typeof message.error.message, line).toBe('string');
        }
      }
      return message;
    });
}

export interface PreparedRoom {
  dir: string;
  file: string;
  /** Session tokens by participant. */
  tokens: Record<string, string>;
}

/** A room file with these participants, each with a session of these capabilities (made with the engine, then closed). */
export function prepareRoom(sessions: Record<string, [Capability, ...Capability[]]>): PreparedRoom {
  const dir = tempDir();
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  const room = openRoom(file, { command: 'vitest' });
  try {
    syncArtifact(room);
    const tokens: Record<string, string> = {};
    for (const [participant, capabilities] of Object.entries(sessions)) {
      addParticipant(room, LOCAL_OPERATOR, { name: participant });
      tokens[participant] = createSession(room, LOCAL_OPERATOR, { participant, capabilities }).token;
    }
    return { dir, file, tokens };
  } finally {
    room.close();
  }
}
