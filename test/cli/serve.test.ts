// ce serve and npm start, as a user runs them: real processes, real HTTP,
// real signals.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { isMethod, nextFrame, openSse, type Wire } from '../helpers/mcp-wire.js';
import { makePrivateCa } from '../helpers/private-ca.js';
import { tempDir } from '../helpers/room.js';
import { CE_BIN, ce, failedWith, okJson } from '../helpers/run-ce.js';
import { rpc, rpcRequest } from '../helpers/server.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Running {
  child: ChildProcess;
  /** Lines printed so far. */
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves with the first line matching. */
  line(pattern: RegExp): Promise<string>;
}

function run(command: string, args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(command, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on('data', (chunk: Buffer) => lines.push(`stderr: ${chunk.toString()}`));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    async line(pattern) {
      await expect.poll(() => lines.some((l) => pattern.test(l)), { timeout: 30_000, interval: 50 }).toBe(true);
      return lines.find((l) => pattern.test(l))!;
    },
  };
}

test('ce serve: one JSON line, MCP over HTTP, one writer, a graceful stop on SIGTERM', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  okJson(await ce(['init', file, '--json']));
  okJson(await ce(['participant', 'add', file, 'alice', '--json']));
  const { token } = okJson<{ token: string }>(
    await ce(['session', 'create', file, '--participant', 'alice', '--caps', 'read,write', '--json']),
  );

  const server = run(process.execPath, [CE_BIN, 'serve', file, '--port', '0', '--json']);
  const started = JSON.parse(await server.line(/^\{/)) as { mcp_url: string; rest_url: string; pid: number };
  expect(started).toMatchObject({
    mcp_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
    rest_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/workspace$/),
    page_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
    pid: server.child.pid,
  });

  const discovered = await rpc(started.mcp_url, 'server/discover', {}, { token });
  expect(discovered.body.result.supportedVersions).toEqual(['2026-07-28']);

  // A second room process is refused while this one writes; a state-changing ce goes through it.
  // It names where the first one serves.
  failedWith(
    await ce(['serve', file, '--port', '0']),
    1,
    new RegExp(
      `process ${server.child.pid} \\(ce serve.*; nothing was written; it serves ${started.mcp_url.replace(/\/mcp$/, '').replace(/\./g, '\\.')}$`,
      'm',
    ),
  );
  expect(okJson(await ce(['participant', 'add', file, 'bob', '--json']))).toMatchObject({
    participant: { name: 'bob' },
  });

  // A listen stream open at shutdown gets the final response to its request, then the end.
  const { url, init } = rpcRequest(
    started.mcp_url,
    'subscriptions/listen',
    { notifications: { resourceSubscriptions: ['workspace:///notes.md'] } },
    { token, id: 'listen-1' },
  );
  const stream = await openSse(url, init);
  await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');

  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  await stream.ended;
  const last = stream.frames.at(-1) as Wire;
  expect(last).toMatchObject({
    id: 'listen-1',
    result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } },
  });
  // The lock went with it.
  okJson(await ce(['participant', 'add', file, 'carol', '--json']));
});

test('ce serve stops on SIGINT too, and refuses bad options', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  const server = run(process.execPath, [CE_BIN, 'serve', file, '--port', '0']);
  await server.line(/MCP: +http:\/\/127\.0\.0\.1:\d+\/mcp/);
  server.child.kill('SIGINT');
  expect(await server.exited).toBe(0);
  failedWith(
    await ce(['serve', file, '--port', 'abc']),
    2,
    /^ce: --port must be a port number from 0 to 65535, 0 for any free one \(got "abc"\)$/m,
  );
  failedWith(await ce(['serve', path.join(dir, 'missing.md')]), 1, /does not exist/);
  failedWith(
    await ce(['serve', file, '--allow-host', 'https://rooms.example.net/']),
    2,
    /^ce: --allow-host: "https:\/\/rooms\.example\.net\/" is not a host name; give NAME or NAME:PORT \(no scheme, no path\)/m,
  );
  failedWith(await ce(['serve', file, '--allow-host', 'rooms.example.net:99999']), 2, /--allow-host: "rooms/);
  // What the room's settings refuse as an origin, --allow-origin refuses too: the opaque origin above all.
  for (const origin of ['null', 'https://app.example/path', 'file://']) {
    failedWith(
      await ce(['serve', file, '--allow-origin', `https://ok.example,${origin}`]),
      2,
      new RegExp(
        `^ce: --allow-origin: "${origin.replace(/[./]/g, '\\$&')}" is not a browser origin; give http:// or https://, a host name and perhaps a port, with no path, e\\.g\\. https://rooms\\.example\\.net$`,
        'm',
      ),
    );
  }
  failedWith(await ce(['serve', file, '--max-streams', '0']), 2, /^ce: --max-streams must be at least 1 \(got "0"\)$/m);
  failedWith(await ce(['serve', file, '--max-streams', 'many']), 2, /^ce: --max-streams must be a whole number/m);
});

test('ce serve --base-path: every URL it prints is under the prefix, and ce on this machine reaches the room there', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  const server = run(process.execPath, [CE_BIN, 'serve', file, '--port', '0', '--base-path', '/rooms/notes/']);
  const mcp = await server.line(/MCP: /);
  expect(mcp).toMatch(/^ {2}MCP: +http:\/\/127\.0\.0\.1:\d+\/rooms\/notes\/mcp$/);
  expect(await server.line(/REST: /)).toMatch(
    /\/rooms\/notes\/workspace\/… \(the routes: http:\/\/127\.0\.0\.1:\d+\/rooms\/notes\/docs\)$/,
  );
  expect(await server.line(/page: /)).toMatch(/:\d+\/rooms\/notes\/ \(sign in/);
  // ce status reads the room's /readyz, and a change goes through the room, both under the prefix.
  const status = okJson<{ process: { mcp_url: string; ready: { ready: boolean } } }>(
    await ce(['status', file, '--json']),
  );
  expect(status.process).toMatchObject({
    mcp_url: expect.stringMatching(/\/rooms\/notes\/mcp$/),
    ready: { ready: true },
  });
  okJson(await ce(['participant', 'add', file, 'alice', '--json']));
  // ce on another machine: --url names the room at its path, for REST as for MCP.
  const { token } = okJson<{ token: string }>(
    await ce(['session', 'create', file, '--participant', 'alice', '--caps', 'read,write', '--json']),
  );
  const url = status.process.mcp_url.replace(/\/mcp$/, '');
  const remote = (args: string[]) => ce([...args, '--url', url, '--json'], { env: { CE_TOKEN: token } });
  const created = okJson<{ handoff: { handoff_id: string } }>(
    await remote(['handoff-create', '--summary', 'Through the path', '--assignee', 'alice']),
  );
  expect(okJson<{ handoffs: { handoff_id: string }[] }>(await remote(['handoffs'])).handoffs).toEqual([
    expect.objectContaining({ handoff_id: created.handoff.handoff_id }),
  ]);
  expect(server.lines.join('\n')).not.toMatch(/stderr:.*(error|warn)/i);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  expect(
    okJson<{ participants: { name: string }[] }>(await ce(['participant', 'list', file, '--json'])).participants,
  ).toEqual([expect.objectContaining({ name: 'alice' })]);
  for (const bad of ['rooms/notes', '/rooms/../notes', '/rooms notes']) {
    failedWith(
      await ce(['serve', file, '--base-path', bad]),
      2,
      new RegExp(
        `^ce: --base-path: ${JSON.stringify(bad).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a path prefix; give /SEGMENT`,
        'm',
      ),
    );
  }
});

test('a port that is taken is said so, with what to do; PORT=abc npm start names PORT', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  const taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  const { port } = taken.address() as AddressInfo;
  try {
    failedWith(
      await ce(['serve', file, '--port', String(port)]),
      1,
      new RegExp(
        `^ce: port ${port} on 127\\.0\\.0\\.1 is taken by another program; choose another with --port, or --port 0 for any free one$`,
        'm',
      ),
    );
    const json = await ce(['serve', file, '--port', String(port), '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'port_in_use', message: expect.stringMatching(/^port \d+ on 127\.0\.0\.1 is taken/) },
    });
    // A start refused leaves the folder as it was: the sidecar it made is gone with it.
    expect(readdirSync(dir)).toEqual(['notes.md']);
  } finally {
    taken.close();
  }
  const start = run(process.execPath, ['dist/start-example.js'], { ROOM_DIR: dir, PORT: 'abc' });
  expect(await start.exited).toBe(2);
  expect(start.lines).toEqual(['stderr: npm start: PORT must be a port number from 0 to 65535 (got "abc")\n']);
});

test('a TLS key that is not the certificate’s, or files that are not PEM, are named by their flags; nothing is made', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  const ca = makePrivateCa('Serve test CA');
  const [one, two] = [ca.serverCertificate('127.0.0.1'), ca.serverCertificate('127.0.0.1')];
  const write = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const [cert, otherKey] = [write('room.crt', one.certPem), write('other.key', two.keyPem)];
  failedWith(
    await ce(['serve', file, '--port', '0', '--tls-cert', cert, '--tls-key', otherKey]),
    2,
    /^ce: --tls-key is not the key of the certificate in --tls-cert$/m,
  );
  failedWith(
    await ce(['serve', file, '--port', '0', '--tls-cert', otherKey, '--tls-key', cert]),
    2,
    /^ce: --tls-cert and --tls-key must be a PEM certificate and its PEM private key \(OpenSSL said: .+\)$/m,
  );
  expect(readdirSync(dir).sort()).toEqual(['notes.md', 'other.key', 'room.crt']);
});

test('npm start: a room on the bundled example, with a token that reads, writes and approves', async () => {
  const dir = tempDir();
  const start = run(process.execPath, ['dist/start-example.js'], { ROOM_DIR: dir, PORT: '0' });
  const mcpUrl = (await start.line(/MCP URL:/)).split(/\s+/).pop()!;
  const rest = await start.line(/^ {2}REST:/);
  expect(rest).toMatch(
    /^ {2}REST: +http:\/\/127\.0\.0\.1:\d+\/workspace\/… +\(the routes: http:\/\/127\.0\.0\.1:\d+\/docs\)$/,
  );
  const token = (await start.line(/^ {2}token:/)).trim().split(/\s+/)[1]!;
  const page = await start.line(/^ {2}page:/);
  expect(page).toContain(`${new URL(mcpUrl).origin}/#token=${token}`);
  const read = await rpc(mcpUrl, 'resources/read', { uri: 'workspace:///welcome.md' }, { token });
  expect(read.body.result.contents[0].text).toMatch(/^# Welcome to Common Room/);
  const proposed = await rpc(
    mcpUrl,
    'tools/call',
    { name: 'workspace_propose', arguments: { base_revision: 1, content: '# Changed\n', summary: 'A change' } },
    { token },
  );
  const proposalId = proposed.body.result.structuredContent.proposal.proposal_id;
  const approved = await rpc(
    mcpUrl,
    'tools/call',
    { name: 'proposal_approve', arguments: { proposal_id: proposalId } },
    { token },
  );
  expect(approved.body.result.structuredContent.revision).toMatchObject({ number: 2, author: 'you', approver: 'you' });
  start.child.kill('SIGINT');
  expect(await start.exited).toBe(0);

  // A second start serves the same room with the same sessions: no new ones pile up.
  const again = run(process.execPath, ['dist/start-example.js'], { ROOM_DIR: dir, PORT: '0' });
  expect((await again.line(/^ {2}token:/)).trim().split(/\s+/)[1]).toBe(token);
  again.child.kill('SIGINT');
  expect(await again.exited).toBe(0);
  const sessions = okJson<{ sessions: unknown[] }>(
    await ce(['session', 'list', path.join(dir, 'welcome.md'), '--json']),
  );
  expect(sessions.sessions).toHaveLength(2);
});

test('a file taken away from its sidecar: ce serve names the restore that writes it back, which works', async () => {
  const file = path.join(tempDir(), 'notes.md');
  writeFileSync(file, '# Notes\n');
  okJson(await ce(['init', file, '--json']));
  rmSync(file);
  const refused = failedWith(
    await ce(['serve', file, '--port', '0']),
    1,
    /does not exist, but its room's sidecar does/,
  );
  const restore = /ce restore --sidecar (\S+) (\S+) writes the file/.exec(refused)!;
  okJson(await ce(['restore', '--sidecar', restore[1]!, restore[2]!, '--json']));
  expect(readFileSync(file, 'utf8')).toBe('# Notes\n');
});
