// Remote ce, ce bridge and a listen stream against a room served as another
// machine sees it: on 127.0.0.2 (an address of its own), over HTTPS with a
// certificate from a private CA the test makes. The session token travels in
// CE_TOKEN or --token-file, never on the command line; the CA in --ca. A
// wrong CA, a file that is not a certificate, a revoked token and a missing
// capability are refused, and nothing changes.
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { HandoffCreateOutput, HandoffListOutput, SessionListOutput } from '../../generated/types.js';
import { prepareRoom, request, spawnBridge, type PreparedRoom } from '../helpers/ce-bridge.js';
import { ceServe, type ServedRoom } from '../helpers/ce-serve.js';
import { makePrivateCa } from '../helpers/private-ca.js';
import { ce, failedWith, failedWithJson, okJson, okPlain } from '../helpers/run-ce.js';
import { rpcRequest } from '../helpers/server.js';
import { isMethod, nextFrame, openSse } from '../helpers/mcp-wire.js';
import { Agent, fetch as undiciFetch } from 'undici';

const SLOW = { timeout: 120_000 };
const HOST = '127.0.0.2';

let room: PreparedRoom;
let served: ServedRoom;
let url: string;
/** The room's CA, another CA, and a file that is no certificate. */
let ca: string;
let otherCa: string;
let notACertificate: string;

beforeAll(async () => {
  room = prepareRoom({ alice: ['read', 'write'], bob: ['read', 'write', 'approve'], carol: ['read'] });
  const roomCa = makePrivateCa('Room test CA');
  const server = roomCa.serverCertificate(HOST);
  const file = (name: string, text: string) => {
    const where = path.join(room.dir, name);
    writeFileSync(where, text);
    return where;
  };
  ca = file('ca.pem', roomCa.certPem);
  otherCa = file('other-ca.pem', makePrivateCa('Another CA').certPem);
  notACertificate = file('room.key', server.keyPem);
  const [cert, key] = [file('room.crt', server.certPem), file('room.key', server.keyPem)];
  served = await ceServe(room.file, { args: ['--host', HOST, '--tls-cert', cert, '--tls-key', key] });
  url = served.restUrl.replace(/\/workspace$/, '');
}, 60_000);

afterAll(async () => {
  await served?.stop();
});

/** ce against the room's address, as `who`: the token in CE_TOKEN. */
const remote = (who: string, args: string[]) =>
  ce([...args, '--url', url, '--ca', ca], { env: { CE_TOKEN: room.tokens[who]! } });

const handoffCount = async (): Promise<number> =>
  okJson<HandoffListOutput>(await ce(['handoffs', room.file, '--participant', 'bob', '--json'])).handoffs.length;

describe('remote ce over HTTPS from a private CA', () => {
  test('the room serves HTTPS on 127.0.0.2 and names that address; a loopback address brings no warning', () => {
    expect(served.mcpUrl).toMatch(/^https:\/\/127\.0\.0\.2:\d+\/mcp$/);
    expect(served.stderr()).not.toMatch(/beyond loopback|in clear/);
  });

  test(
    'a whole handoff from "another machine": same output as ce on the room machine, the session acting',
    SLOW,
    async () => {
      const created = okJson<HandoffCreateOutput>(
        await remote('alice', ['handoff-create', '--summary', 'Check the intro', '--assignee', 'bob', '--json']),
      );
      expect(created.handoff).toMatchObject({ owner: 'alice', assignee: 'bob', status: 'open' });
      const id = created.handoff.handoff_id;

      // bob's token from a file (the first line), as a host would keep it.
      const tokenFile = path.join(room.dir, 'bob.token');
      writeFileSync(tokenFile, `${room.tokens.bob}\n`);
      const accepted = await ce(['handoff-accept', id, '--url', url, '--ca', ca, '--token-file', tokenFile], {
        env: { CE_TOKEN: '' },
      });
      expect(okPlain(accepted)).toMatch(new RegExp(`^accepted handoff ${id}`, 'm'));

      // The same listing, plain and --json, remote and on the room's machine (through its process).
      for (const json of [[], ['--json']]) {
        const [far, near] = await Promise.all([
          remote('bob', ['handoff', id, ...json]),
          ce(['handoff', room.file, id, '--participant', 'bob', ...json]),
        ]);
        expect(okPlain(far)).toBe(okPlain(near));
      }
    },
  );

  test('a list with more pages names the next one with the room’s own flags kept: --url and --ca', SLOW, async () => {
    for (const summary of ['Page one', 'Page two']) {
      okJson(await remote('alice', ['handoff-create', '--summary', summary, '--json']));
    }
    const first = okPlain(await remote('alice', ['handoffs', '--limit', '1']));
    const more = /^more: ce (.+)$/m.exec(first)?.[1];
    expect(more).toContain(`--ca ${ca}`);
    const next = more!.split(' ').slice(1); // the words after `handoffs`, as printed (no word needs quoting here)
    const second = okPlain(await ce(['handoffs', ...next], { env: { CE_TOKEN: room.tokens.alice! } }));
    expect(second).not.toBe(first);
  });

  test('a wrong CA, no CA, or a file that is no certificate: refused before anything is sent', SLOW, async () => {
    const before = await handoffCount();
    const create = ['handoff-create', '--summary', 'Should not exist', '--assignee', 'bob', '--url', url];
    const env = { env: { CE_TOKEN: room.tokens.alice! } };
    const [wrong, none, key] = await Promise.all([
      ce([...create, '--ca', otherCa], env),
      ce(create, env),
      ce([...create, '--ca', notACertificate], env),
    ]);
    for (const run of [wrong, none]) {
      // Nothing reached the room: exit 3, not a refusal of the room's.
      failedWith(
        run,
        3,
        new RegExp(
          `^ce: cannot reach the room at ${url.replace(/\./g, '\\.')}: its certificate is not signed by a CA ce trusts \\(\\w+\\); give the room's CA certificate with --ca FILE; nothing was sent$`,
          'm',
        ),
      );
    }
    failedWith(key, 2, /^ce: --ca: .*room\.key holds no PEM certificate/m);
    expect(await handoffCount()).toBe(before);
  });

  test(
    'plain HTTP to the HTTPS room: a 400 saying to use https, as ce shows it; the room serves HTTPS on',
    SLOW,
    async () => {
      const before = await handoffCount();
      const plain = url.replace(/^https:/, 'http:');
      const answer = await fetch(`${plain}/workspace/handoffs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${room.tokens.alice}`, 'content-type': 'application/json' },
        body: JSON.stringify({ summary: 'Sent in clear', padding: 'x'.repeat(200_000) }),
      });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(await answer.json()).toMatchObject({
        status: 400,
        code: 'invalid_input',
        detail: 'this room serves HTTPS: the request came as plain HTTP; use an https:// address',
      });
      failedWith(
        await ce(['handoffs', '--url', plain, '--ca', ca], { env: { CE_TOKEN: room.tokens.alice! } }),
        1,
        /^ce: this room serves HTTPS: the request came as plain HTTP; use an https:\/\/ address$/m,
      );
      // A connection that says nothing and goes, or is reset, costs the room nothing.
      await new Promise<void>((resolve) => {
        const socket = connect(Number(new URL(url).port), HOST, () => {
          socket.resetAndDestroy();
          resolve();
        });
      });
      expect(await handoffCount()).toBe(before);
      okJson(await remote('alice', ['handoffs', '--json']));
    },
  );

  test('a revoked token and a capability the session lacks are refused, and change nothing', SLOW, async () => {
    const before = await handoffCount();
    const lacking = await remote('carol', ['handoff-create', '--summary', 'No write', '--assignee', 'bob', '--json']);
    failedWithJson(lacking, 'forbidden', /lacks the write capability/);

    const sessions = okJson<SessionListOutput>(
      await ce(['session', 'list', room.file, '--participant', 'carol', '--json']),
    ).sessions;
    okPlain(await ce(['session', 'revoke', room.file, sessions[0]!.session_id]));
    const [reading, writing] = await Promise.all([
      remote('carol', ['handoffs']),
      remote('carol', ['handoff-create', '--summary', 'Revoked', '--assignee', 'bob']),
    ]);
    for (const run of [reading, writing]) {
      failedWith(
        run,
        1,
        /^ce: the room at https:\/\/127\.0\.0\.2:\d+ refused the token: it is unknown, expired or revoked$/m,
      );
    }
    expect(await handoffCount()).toBe(before);
  });
});

describe('a listen stream over HTTPS from a private CA', () => {
  test('gets the notification of the task it follows, its frames written to the encrypted socket', SLOW, async () => {
    const created = okJson<HandoffCreateOutput>(
      await remote('alice', ['handoff-create', '--summary', 'Listened to over TLS', '--assignee', 'bob', '--json']),
    );
    const { handoff_id: id, task_id: taskId } = created.handoff;
    expect(okPlain(await remote('bob', ['handoff-accept', id]))).toMatch(/^accepted handoff/m);
    const agent = new Agent({ connect: { ca: readFileSync(ca) } });
    const fetchVia = ((input: string, init: object) => undiciFetch(input, { ...init, dispatcher: agent })) as never;
    const { url: listenUrl, init } = rpcRequest(
      served.mcpUrl,
      'subscriptions/listen',
      { notifications: { taskIds: [taskId] } },
      { token: room.tokens.alice, tasks: true, id: 'tls' },
    );
    const stream = await openSse(listenUrl, init, fetchVia);
    try {
      await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
      expect(okPlain(await remote('bob', ['handoff-complete', id, '--result-text', 'done']))).toMatch(/result_ready/);
      const frame = await nextFrame(
        stream,
        (f) => isMethod('notifications/tasks')(f) && f.params.status === 'completed',
        'the completion',
      );
      expect(frame.params).toMatchObject({ taskId, _meta: { 'io.modelcontextprotocol/subscriptionId': 'tls' } });
    } finally {
      stream.abort();
      await agent.close();
    }
  });
});

describe('ce bridge over HTTPS from a private CA', () => {
  test(
    'with the room CA it forwards; with another CA each request is answered with the certificate trouble',
    SLOW,
    async () => {
      const launch = (caFile: string) =>
        spawnBridge({
          args: ['bridge', '--url', served.mcpUrl, '--ca', caFile],
          env: { CE_TOKEN: room.tokens.alice! },
        });
      const [trusted, untrusted] = [launch(ca), launch(otherCa)];
      try {
        trusted.send(request(1, 'tools/list'));
        untrusted.send(request(1, 'tools/list'));
        const [listed, refused] = await Promise.all([trusted.answer(1), untrusted.answer(1)]);
        expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toContain('handoff_create');
        expect(refused.error).toMatchObject({
          code: -32603,
          message: expect.stringMatching(
            /its certificate is not signed by a CA ce trusts .*--ca FILE; nothing was sent$/,
          ),
        });
        expect(await untrusted.end()).toBe(0);
        expect(await trusted.end()).toBe(0);
      } finally {
        trusted.kill();
        untrusted.kill();
      }
    },
  );

  test(
    'with FILE on the room’s own machine it trusts the certificate the room started with, as ce does',
    SLOW,
    async () => {
      const local = spawnBridge({ args: ['bridge', room.file, '--participant', 'alice'], env: {} });
      try {
        local.send(request(1, 'tools/list'));
        const listed = await local.answer(1);
        expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toContain('handoff_create');
        expect(await local.end()).toBe(0);
      } finally {
        local.kill();
      }
    },
  );
});
