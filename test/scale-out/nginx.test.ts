// Two rooms behind one nginx, as README's "Running many rooms" sets them up:
// examples/nginx.conf itself (its names, ports and certificate set for the
// test), TLS with a certificate from a CA the test makes, each room started
// with --base-path /rooms/NAME and --allow-host. Through the proxy, the
// official MCP client runs a whole handoff in each room, a listen stream in
// each stays open across 60 s of quiet and then delivers a change, and the
// page loads at its prefix, signs in and goes live in a real browser.
// Opt-in (`npm run test:scale-out`): it installs nginx from Debian.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium } from 'playwright-core';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHROMIUM } from '../helpers/browser.js';
import { ceServe, roomOperator, type RoomOperator, type ServedRoom } from '../helpers/ce-serve.js';
import { wholeHandoff } from '../helpers/interop.js';
import { connectClientOver, rawDispatcherOver } from '../helpers/mcp-clients.js';
import { isMethod, nextFrame, openSse } from '../helpers/mcp-wire.js';
import { makePrivateCa } from '../helpers/private-ca.js';
import { tempDir } from '../helpers/room.js';
import { rpcRequest } from '../helpers/server.js';
import { nginxBinary } from './tools.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/nginx.conf', import.meta.url));
/** The public name of the rooms: the test's resolver and browser map it to 127.0.0.1. */
const NAME = 'rooms.example.test';
const ROOMS = ['notes', 'plans'] as const;
const IDLE_MS = 61_000;

interface ProxiedRoom {
  served: ServedRoom;
  operator: RoomOperator;
  /** https://NAME:PORT/rooms/ROOM */
  url: string;
  tokens: Record<'alice' | 'bob' | 'dave', string>;
}

let dir: string;
let nginx: ChildProcess;
let port: number;
let caPem: string;
let spki: string;
const rooms = new Map<string, ProxiedRoom>();

/** fetch through the proxy: NAME resolves to 127.0.0.1, and only the test's CA is trusted. */
let agent: Agent;
const viaProxy = ((url: string | URL, init?: RequestInit) =>
  undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as typeof fetch;

/** The resolver of the test's clients: NAME is 127.0.0.1. */
const toLoopback = (
  hostname: string,
  options: { all?: boolean },
  callback: (error: Error | null, address: unknown, family?: number) => void,
): void => {
  if (hostname !== NAME) callback(new Error(`the test resolves only ${NAME}, not ${hostname}`), null);
  else if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as AddressInfo;
      server.close(() => resolve(free));
    });
  });

/** examples/nginx.conf with this test's port, name, certificate and rooms; every setting it replaces must be there. */
function exampleConfig(cert: string, key: string, roomPorts: Record<string, number>): string {
  let text = readFileSync(EXAMPLE, 'utf8');
  const replace = (from: string, to: string) => {
    expect(text, `examples/nginx.conf has ${from}`).toContain(from);
    text = text.replaceAll(from, to);
  };
  // The HTTPS server only: the redirect from port 80 needs a port the test cannot bind.
  text = text.slice(0, text.indexOf('# Plain HTTP'));
  replace('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`);
  replace('listen [::]:443 ssl;', '');
  replace('rooms.example.net', NAME);
  replace('/etc/ssl/certs/rooms.example.test.pem', cert);
  replace('/etc/ssl/private/rooms.example.test.key', key);
  replace('http://127.0.0.1:7421', `http://127.0.0.1:${roomPorts.notes}`);
  replace('http://127.0.0.1:7422', `http://127.0.0.1:${roomPorts.plans}`);
  return text;
}

async function startNginx(server: string): Promise<void> {
  const binary = nginxBinary();
  writeFileSync(path.join(dir, 'server.conf'), server);
  const main = path.join(dir, 'nginx.conf');
  writeFileSync(
    main,
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      'events { worker_connections 256; }',
      'http {',
      `  access_log ${dir}/access.log;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${dir}/${kind};`),
      `  include ${dir}/server.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  nginx = spawn(binary, ['-c', main, '-p', dir], { stdio: ['ignore', 'inherit', 'inherit'] });
  const ready = async () =>
    viaProxy(`https://${NAME}:${port}/rooms/notes/healthz`).then(
      (response) => response.status === 200,
      () => false,
    );
  for (const deadline = Date.now() + 15_000; !(await ready()); await sleep(100)) {
    if (Date.now() > deadline || nginx.exitCode !== null) throw new Error(`nginx did not serve: see ${dir}/error.log`);
  }
}

async function setUp(): Promise<void> {
  dir = tempDir();
  port = await freePort();
  const ca = makePrivateCa('Rooms test CA');
  caPem = ca.certPem;
  const server = ca.serverCertificate(NAME);
  writeFileSync(path.join(dir, 'rooms.pem'), `${server.certPem}${caPem}`);
  writeFileSync(path.join(dir, 'rooms.key'), server.keyPem, { mode: 0o600 });
  spki = createHash('sha256')
    .update(new X509Certificate(server.certPem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');
  agent = new Agent({ connect: { ca: caPem, lookup: toLoopback } as never });

  const roomPorts: Record<string, number> = {};
  for (const name of ROOMS) {
    const file = path.join(dir, `${name}.md`);
    writeFileSync(file, `# ${name}\n`);
    roomPorts[name] = await freePort();
    const served = await ceServe(file, {
      port: roomPorts[name],
      args: ['--base-path', `/rooms/${name}`, '--allow-host', NAME],
    });
    const operator = roomOperator(file);
    for (const who of ['alice', 'bob', 'dave']) await operator.addParticipant(who);
    rooms.set(name, {
      served,
      operator,
      url: `https://${NAME}:${port}/rooms/${name}`,
      tokens: {
        alice: await operator.session('alice', ['read', 'write']),
        bob: await operator.session('bob', ['read', 'write']),
        dave: await operator.session('dave', ['read', 'approve']),
      },
    });
  }
  await startNginx(exampleConfig(path.join(dir, 'rooms.pem'), path.join(dir, 'rooms.key'), roomPorts));
}

const transport = (room: ProxiedRoom, who: keyof ProxiedRoom['tokens']) =>
  new StreamableHTTPClientTransport(new URL(`${room.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${room.tokens[who]}` } },
    fetch: viaProxy,
  });

describe.skipIf(!process.env.CE_SCALE_OUT)('two rooms behind nginx (opt-in: npm run test:scale-out)', () => {
  beforeAll(setUp, 120_000);
  afterAll(async () => {
    nginx?.kill('SIGTERM');
    for (const room of rooms.values()) await room.served.stop();
    await agent?.close();
  });

  test('the certificate is checked: a client without the test CA is refused before anything is sent', async () => {
    const plain = new Agent({ connect: { lookup: toLoopback } as never });
    await expect(
      undiciFetch(`https://${NAME}:${port}/rooms/notes/healthz`, { dispatcher: plain }).catch((error: Error) => {
        throw error.cause ?? error;
      }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/CERT|SIGNATURE|ISSUER/) });
    await plain.close();
  });

  test.each(ROOMS)('the official MCP client runs a whole handoff through the proxy in /rooms/%s', async (name) => {
    const room = rooms.get(name)!;
    const owner = await rawDispatcherOver(transport(room, 'alice'), { name: 'alice' });
    const assignee = await connectClientOver(transport(room, 'bob'), { name: 'bob' });
    const approver = await connectClientOver(transport(room, 'dave'), { name: 'dave' });
    try {
      const { handoffId } = await wholeHandoff({ owner, assignee, approver, approverName: 'dave' });
      // Each room keeps its own: the handoff is in this room only.
      for (const other of rooms.values()) {
        const answer = await other.operator.rest('GET', `/workspace/handoffs/${handoffId}`);
        expect(answer.status, other.url).toBe(other === room ? 200 : 404);
      }
    } finally {
      await Promise.all([owner.close(), assignee.close(), approver.close()]);
    }
  });

  test(
    'a listen stream through the proxy stays open across 60 s of quiet, then delivers the next change',
    async () => {
      const streams = await Promise.all(
        ROOMS.map(async (name) => {
          const room = rooms.get(name)!;
          const { url, init } = rpcRequest(
            `${room.url}/mcp`,
            'subscriptions/listen',
            { notifications: { resourceSubscriptions: ['workspace:///.room/proposals'] } },
            { token: room.tokens.alice, id: `listen-${name}` },
          );
          const stream = await openSse(url, init, viaProxy);
          expect(stream.response.status).toBe(200);
          await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
          return { room, stream };
        }),
      );
      await sleep(IDLE_MS);
      for (const { room, stream } of streams) {
        expect(stream.done, `${room.url}: the stream ended while quiet`).toBe(false);
        // Keep-alive comments crossed the proxy as they were sent (nothing buffered).
        expect(stream.comments.length).toBeGreaterThanOrEqual(3);
        const before = stream.frames.length;
        const edited = await viaProxy(`${room.url}/workspace/proposals`, {
          method: 'POST',
          headers: { authorization: `Bearer ${room.tokens.bob}`, 'content-type': 'application/json' },
          body: JSON.stringify({ base_revision: 1, content: '# After the quiet\n', summary: 'After 60 s' }),
        });
        expect(edited.status).toBe(201);
        await expect
          .poll(
            () =>
              stream.frames
                .slice(before)
                .some(
                  (frame) =>
                    frame.method === 'notifications/resources/updated' &&
                    frame.params.uri === 'workspace:///.room/proposals',
                ),
            { timeout: 5_000 },
          )
          .toBe(true);
        stream.abort();
      }
    },
    IDLE_MS + 30_000,
  );

  test('the page loads at its prefix through the proxy, signs in and goes live', async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        `--host-resolver-rules=MAP ${NAME} 127.0.0.1`,
        // The test CA's server key, trusted for this browser alone (it has no trust store of its own to add a CA to).
        `--ignore-certificate-errors-spki-list=${spki}`,
      ],
    });
    try {
      for (const name of ROOMS) {
        const room = rooms.get(name)!;
        const page = await browser.newPage();
        const requests: string[] = [];
        const errors: string[] = [];
        page.on('request', (request) => requests.push(request.url()));
        page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
        // Without the slash: nginx sends the browser on to the prefix with it, the token kept in the fragment.
        await page.goto(`${room.url}#token=${room.tokens.alice}`);
        await page.locator('#live[data-state="live"]').waitFor({ timeout: 15_000 });
        expect(page.url()).toBe(`${room.url}/`);
        await expect.poll(() => page.locator('#artifact-body h1').textContent()).toBe(name);

        const created = await viaProxy(`${room.url}/workspace/handoffs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${room.tokens.bob}`, 'content-type': 'application/json' },
          body: JSON.stringify({ summary: `Seen live in ${name}`, assignee: 'alice' }),
        });
        expect(created.status).toBe(201);
        await expect
          .poll(() => page.locator('body').textContent(), { timeout: 10_000 })
          .toContain(`Seen live in ${name}`);
        await page.screenshot({ path: path.join(dir, `page-${name}.png`), fullPage: true });

        expect(requests.filter((url) => !url.startsWith(`${room.url}/`) && url !== room.url)).toEqual([]);
        expect(errors).toEqual([]);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  });
});
