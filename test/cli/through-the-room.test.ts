// ce's state-changing commands while `ce serve` runs: they go through the
// room process (its REST API, with the operator token of its runtime file),
// so the change is the room's own and its live subscribers see it; refusals
// come back with the same exit code and message as on the direct path. With
// no room process running (stopped, killed, or not listening) they take the
// writer's lock as before. Real processes: `ce serve` and the `ce` binary.
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { onTestFinished, expect, test } from 'vitest';
import type {
  HandoffTaskOutput,
  ParticipantOutput,
  SessionCreateOutput,
  TaskCancelOutput,
} from '../../generated/types.js';
import { addParticipant, createSession, LOCAL_OPERATOR } from '../helpers/engine.js';
import { runtimeFilePath, readRuntimeFile } from '../../src/http/runtime-file.js';
import { ceServe } from '../helpers/ce-serve.js';
import { isMethod, nextFrame, openSse, type Wire } from '../helpers/mcp-wire.js';
import { withRoomFile } from '../helpers/room-file.js';
import { ce, failedWith, failedWithJson, okJson, okPlain, type CeRun } from '../helpers/run-ce.js';
import { rpc, rpcRequest } from '../helpers/server.js';

const SLOW = { timeout: 180_000 };

/** A room with alice and bob, made with the engine and closed again; alice's read,write token. */
const prepareRoom = () =>
  withRoomFile((room) => {
    for (const name of ['alice', 'bob']) addParticipant(room, LOCAL_OPERATOR, { name });
    const { token } = createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read', 'write'] });
    return { aliceToken: token };
  });

const readNotes = (mcpUrl: string, token: string) =>
  rpc(mcpUrl, 'resources/read', { uri: 'workspace:///notes.md' }, { token });

test(
  'with ce serve running, state changes go through the room: its subscribers see them, refusals read the same',
  SLOW,
  async () => {
    const { file, aliceToken } = prepareRoom();
    const served = await ceServe(file);
    onTestFinished(served.kill);
    expect(readRuntimeFile(file)).toMatchObject({ pid: served.pid, base_url: new URL(served.mcpUrl).origin });

    // alice's task, and her live stream for it (Tasks extension declared).
    const created = await rpc(
      served.mcpUrl,
      'tools/call',
      { name: 'handoff_create', arguments: { summary: 'Write the introduction', assignee: 'bob' } },
      { token: aliceToken },
    );
    const { handoff_id: handoffId, task_id: taskId } = created.body.result.structuredContent.handoff;
    const { url, init } = rpcRequest(
      served.mcpUrl,
      'subscriptions/listen',
      { notifications: { taskIds: [taskId] } },
      { token: aliceToken, tasks: true, id: 'listen-1' },
    );
    const stream = await openSse(url, init);
    const ack = await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
    expect(ack.params.notifications).toEqual({ taskIds: [taskId] });

    // Refusals: each must read exactly like the direct path's, checked after the room stops.
    const refusals: string[][] = [
      ['participant', 'add', file, 'alice'],
      ['participant', 'remove', file, 'nobody'],
      ['session', 'create', file, '--participant', 'nobody', '--caps', 'read'],
      ['session', 'create', file, '--participant', 'alice', '--caps', 'read,read', '--json'],
      ['session', 'revoke', file, 'se_nope'],
      ['task-cancel', file, 'tk_nope', '--participant', 'alice'],
      ['task-cancel', file, taskId, '--participant', 'bob'],
      ['task-cancel', file, taskId, '--participant', 'zed', '--json'],
    ];
    const [added, init_, ...refused] = await Promise.all([
      ce(['participant', 'add', file, 'carol']),
      ce(['init', file, '--json']),
      ...refusals.map((args) => ce(args)),
    ]);
    expect(okPlain(added)).toBe('added participant carol\n');
    expect(okJson(init_)).toMatchObject({
      artifact: file,
      already_room: true,
      revision: { number: 1, source: 'initial' },
      recorded: null,
    });
    failedWith(refused[0]!, 1, /^ce: alice is already a participant of this room$/m);
    failedWith(refused[1]!, 1, /nobody/);
    failedWith(refused[2]!, 1, /nobody/);
    const invalid = failedWithJson(refused[3]!, 'invalid_input', /^--caps must NOT have duplicate items/);
    // Named by the flag given, in the message and in details.errors.
    expect(invalid).toMatchObject({ details: { errors: [{ path: '/--caps', keyword: 'uniqueItems' }] } });
    failedWith(refused[4]!, 1, /^ce: unknown session se_nope$/m);
    failedWith(refused[5]!, 1, /^ce: unknown task$/m);
    failedWith(refused[6]!, 1, /^ce: unknown task$/m); // bob has not accepted: not his to see
    failedWithJson(refused[7]!, 'not_found', /^zed is not a participant of this room$/);

    // A session made through the room works against the room at once; revoked, it stops.
    const made = okJson<SessionCreateOutput>(
      await ce(['session', 'create', file, '--participant', 'carol', '--caps', 'read', '--json']),
    );
    expect(made.session).toMatchObject({ participant: 'carol', capabilities: ['read'], revoked_at: null });
    const read = await readNotes(served.mcpUrl, made.token);
    expect(read.status).toBe(200);
    expect(read.body.result.contents[0].text).toBe('# Notes\n');
    const revoked = okPlain(await ce(['session', 'revoke', file, made.session.session_id]));
    expect(revoked).toBe(`revoked session ${made.session.session_id} of carol\n`);
    expect((await readNotes(served.mcpUrl, made.token)).status).toBe(401);
    const removed = okJson<ParticipantOutput>(await ce(['participant', 'remove', file, 'carol', '--json']));
    expect(removed.participant).toMatchObject({ name: 'carol', removed_at: expect.any(String) });

    // ce task-cancel: the live stream gets the cancelled task.
    const cancelled = okJson<TaskCancelOutput>(
      await ce(['task-cancel', file, taskId, '--participant', 'alice', '--json']),
    );
    expect(cancelled).toMatchObject({ cancelled: true, task: { taskId, status: 'cancelled' } });
    const notified = await nextFrame(
      stream,
      (f: Wire) => f.method === 'notifications/tasks' && f.params.status === 'cancelled',
      'notifications/tasks (cancelled)',
    );
    expect(notified.params).toMatchObject({
      taskId,
      status: 'cancelled',
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' },
    });
    expect(okJson<HandoffTaskOutput>(await ce(['handoff', file, handoffId, '--json'])).handoff.status).toBe(
      'cancelled',
    );
    expect(okPlain(await ce(['task-cancel', file, taskId, '--participant', 'alice']))).toBe(
      `task ${taskId} was already cancelled; it stays as it was\n`,
    );

    // The room stops: its runtime file goes, and the same commands take the writer's lock again.
    expect(await served.stop()).toBe(0);
    await stream.ended;
    expect(existsSync(runtimeFilePath(file))).toBe(false);
    // One at a time: each takes the writer's lock for its duration.
    const direct: CeRun[] = [];
    for (const args of refusals) direct.push(await ce(args));
    expect(direct.map(said)).toEqual(refused.map(said));
    expect(okPlain(await ce(['participant', 'add', file, 'carol']))).toBe('added participant carol\n');
    const again = okJson<SessionCreateOutput>(
      await ce(['session', 'create', file, '--participant', 'carol', '--caps', 'read', '--json']),
    );
    expect(again.session).toMatchObject({ participant: 'carol', revoked_at: null });
    expect(okJson(await ce(['init', file, '--json']))).toMatchObject({ already_room: true, recorded: null });
    expect(served.stderr()).toBe('');
  },
);

test(
  'a runtime file left by a killed room, or naming a port nobody listens on, leaves the direct path',
  SLOW,
  async () => {
    const { file } = prepareRoom();
    const served = await ceServe(file);
    onTestFinished(served.kill);
    served.kill();
    await served.exited;
    // SIGKILL: no chance to remove it. Its pid is gone, so it names no running room.
    expect(existsSync(runtimeFilePath(file))).toBe(true);
    expect(readRuntimeFile(file)).toBeNull();
    expect(okPlain(await ce(['participant', 'add', file, 'carol']))).toBe('added participant carol\n');

    // A live pid (this test's) but nothing listening: nothing was received, the lock decides.
    writeFileSync(
      runtimeFilePath(file),
      JSON.stringify({
        pid: process.pid,
        base_url: `http://127.0.0.1:${await closedPort()}`,
        mcp_url: '',
        rest_url: '',
        operator_token: 'op_stale',
        started_at: new Date().toISOString(),
      }),
    );
    expect(readRuntimeFile(file)).not.toBeNull();
    const removed = await ce(['participant', 'remove', file, 'carol']);
    const session = await ce(['session', 'create', file, '--participant', 'bob', '--caps', 'read', '--json']);
    expect(okPlain(removed)).toBe('removed participant carol; its sessions are revoked\n');
    expect(okJson<SessionCreateOutput>(session).session.participant).toBe('bob');
  },
);

/** What a run said: its exit code and both outputs. */
const said = ({ code, stdout, stderr }: CeRun) => ({ code, stdout, stderr });

/** A port that was just free: listened on, then closed. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
