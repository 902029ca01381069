// Progress from the assignee, over MCP and REST: the owner sees it in
// tasks/get and on a listen of the task; anyone else is refused and changes
// nothing; a chatty assignee gets at most one committed report a second, so
// the event ring keeps the room's other events; the last report before the
// task ends is always committed; an ended task takes no more.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  callTool,
  createHandoff,
  isMethod,
  listen,
  META_SUBSCRIPTION,
  nextFrame,
  post,
  taskRpc,
  textResult,
  toolOk,
  type Wire,
} from '../helpers/mcp-wire.js';
import { expectOfficial } from '../helpers/mcp-schemas.js';
import { dumpDatabase } from '../helpers/room.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer();
});
afterEach(async () => {
  await s.stop();
});

const restHeaders = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
const reportOverRest = (token: string, handoffId: string, body: Record<string, unknown>) =>
  post(`${s.http.restUrl}/handoffs/${handoffId}/progress`, body, restHeaders(token));

/** alice's handoff, accepted by bob: its task is working. */
async function workingHandoff(): Promise<{ handoffId: string; taskId: string }> {
  const ids = await createHandoff(s, 'alice', { summary: 'Translate the guide', assignee: 'bob' });
  await toolOk(s, 'bob', 'handoff_accept', { handoff_id: ids.handoffId });
  return ids;
}

const progressEvents = () =>
  (
    s.room.store.db.prepare("SELECT * FROM events WHERE type = 'task.progress' ORDER BY id").all() as {
      payload_json: string;
    }[]
  ).map((row) => JSON.parse(row.payload_json) as { message: string });

describe('a report by the assignee', () => {
  it('over MCP: the owner sees it in tasks/get and on a listen of the task, as the official shapes say', async () => {
    const { handoffId, taskId } = await workingHandoff();
    const stream = await listen(s, 'alice', { taskIds: [taskId] }, { tasks: true, id: 'watch' });
    try {
      await nextFrame(stream, isMethod('notifications/subscriptions/acknowledged'), 'the acknowledgement');
      const reported = await toolOk(s, 'bob', 'handoff_progress', {
        handoff_id: handoffId,
        message: 'Chapter 2 of 5',
        progress: 2,
        total: 5,
      });
      expect(reported).toMatchObject({
        committed: true,
        task: { status: 'working', statusMessage: 'Chapter 2 of 5' },
        handoff: { progress: { message: 'Chapter 2 of 5', progress: 2, total: 5, by: 'bob' } },
      });

      const frame = await nextFrame(stream, (f: Wire) => f.method === 'notifications/tasks', 'notifications/tasks');
      expectOfficial('tasks', 'TaskStatusNotification', frame);
      expect(frame.params).toMatchObject({
        taskId,
        status: 'working',
        statusMessage: 'Chapter 2 of 5',
        _meta: { [META_SUBSCRIPTION]: 'watch' },
      });

      const got = await taskRpc(s, 'alice', 'tasks/get', { taskId });
      expectOfficial('tasks', 'GetTaskResult', got.body.result);
      expect(got.body.result).toMatchObject({ status: 'working', statusMessage: 'Chapter 2 of 5' });
      const handoff = await toolOk(s, 'alice', 'handoff_get', { handoff_id: handoffId });
      expect(handoff.handoff.progress).toMatchObject({ message: 'Chapter 2 of 5', progress: 2, total: 5 });
    } finally {
      stream.abort();
    }
  });

  it('over REST: 200 with the task, and GET /workspace/task shows its status message to the owner', async () => {
    const { handoffId, taskId } = await workingHandoff();
    const r = await reportOverRest(s.tokens.bob, handoffId, { message: 'Half way', progress: 50, total: 100 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ committed: true, task: { statusMessage: 'Half way' } });
    const task = await fetch(`${s.http.restUrl}/task?id=${taskId}`, { headers: restHeaders(s.tokens.alice) });
    expect(await task.json()).toMatchObject({ status: 'working', statusMessage: 'Half way' });
  });
});

describe('a report by anyone else, or on an ended task', () => {
  it('is refused and changes nothing: the owner, a reader, an assignee who did not accept', async () => {
    const { handoffId } = await workingHandoff();
    const pending = await createHandoff(s, 'alice', { summary: 'Not yet accepted', assignee: 'bob' });
    const before = dumpDatabase(s.room);
    const owner = await callTool(s, 'alice', 'handoff_progress', { handoff_id: handoffId, message: 'Mine?' });
    expect(owner.body.result).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'forbidden',
          message: `only the assignee who accepted handoff ${handoffId} may report its progress`,
        },
      },
    });
    const reader = await reportOverRest(s.tokens.carol, handoffId, { message: 'Me?' });
    expect(reader.status).toBe(403);
    expect(reader.body.detail).toBe('this session lacks the write capability');
    const early = await reportOverRest(s.tokens.bob, pending.handoffId, { message: 'Before accepting' });
    expect(early.status).toBe(403);
    const bad = await reportOverRest(s.tokens.bob, handoffId, { message: 'x'.repeat(501) });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe('message must NOT have more than 500 characters');
    // More done than there is to do.
    const past = await reportOverRest(s.tokens.bob, handoffId, { message: 'Over', progress: 120, total: 100 });
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({
      detail: 'progress 120 is more than total 100',
      errors: [{ path: '/progress', keyword: 'x-room' }],
    });
    expect(dumpDatabase(s.room)).toEqual(before);
  });

  it.each([
    ['completed', { result: textResult('Done') }],
    ['failed', { error: { code: -32000, message: 'Could not' } }],
  ])('is a conflict once the task is %s, and the task stays as it was', async (status, outcome) => {
    const { handoffId } = await workingHandoff();
    await toolOk(s, 'bob', 'handoff_complete', { handoff_id: handoffId, ...outcome });
    const before = dumpDatabase(s.room);
    const r = await reportOverRest(s.tokens.bob, handoffId, { message: 'Still going' });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(new RegExp(`^task tk_\\S+ is ${status}: it takes no more progress$`));
    expect(dumpDatabase(s.room)).toEqual(before);
  });

  it('is a conflict once the owner cancelled the task', async () => {
    const { handoffId, taskId } = await workingHandoff();
    await taskRpc(s, 'alice', 'tasks/cancel', { taskId });
    const r = await reportOverRest(s.tokens.bob, handoffId, { message: 'Still going' });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/is cancelled: it takes no more progress$/);
  });
});

describe('a chatty assignee', () => {
  it('1,000 reports in a burst commit a few events, leave the ring’s other events in place, and the last one wins', async () => {
    // Other events of the room, before the burst.
    for (let i = 0; i < 20; i++) await createHandoff(s, 'alice', { summary: `Other ${i}` });
    const others = s.room.store.db.prepare("SELECT id FROM events WHERE type != 'task.progress' ORDER BY id").all();
    const { handoffId, taskId } = await workingHandoff();
    // One after another, as one worker sends them: the latest to arrive wins.
    const answers: Wire[] = [];
    for (let i = 0; i < 1000; i++) {
      answers.push(await reportOverRest(s.tokens.bob, handoffId, { message: `step ${i}`, progress: i }));
    }
    expect(answers.every((r) => r.status === 200)).toBe(true);
    const waited = answers.filter((r) => r.body.committed === false).length;
    expect(waited).toBeGreaterThan(990);
    // The last report is committed when its second is up.
    await expect.poll(() => s.room.store.getTask(taskId)?.status_message ?? null, { timeout: 5_000 }).toBe('step 999');
    const events = progressEvents();
    expect(events.length).toBeLessThanOrEqual(3);
    expect(events.at(-1)).toMatchObject({ message: 'step 999', progress: 999 });
    const still = s.room.store.db.prepare("SELECT id FROM events WHERE type != 'task.progress' ORDER BY id").all();
    expect(still.slice(0, others.length)).toEqual(others);
  });

  it('the last report before completion is committed with it, before the result', async () => {
    const { handoffId } = await workingHandoff();
    await reportOverRest(s.tokens.bob, handoffId, { message: 'Almost' });
    const waiting = await reportOverRest(s.tokens.bob, handoffId, { message: 'Last words' });
    expect(waiting.body.committed).toBe(false);
    await toolOk(s, 'bob', 'handoff_complete', { handoff_id: handoffId, result: textResult('Done') });
    const types = (
      s.room.store.db
        .prepare('SELECT type, payload_json FROM events WHERE handoff_id = ? ORDER BY id')
        .all(handoffId) as {
        type: string;
        payload_json: string;
      }[]
    ).map((row) => (row.type === 'task.progress' ? `progress: ${JSON.parse(row.payload_json).message}` : row.type));
    expect(types).toEqual([
      'handoff.created',
      'handoff.accepted',
      'progress: Almost',
      'progress: Last words',
      'handoff.result_ready',
    ]);
    const handoff = await toolOk(s, 'alice', 'handoff_get', { handoff_id: handoffId });
    expect(handoff.handoff.progress).toMatchObject({ message: 'Last words' });
  });
  it('a change refused after taking the waiting report leaves it waiting: committed with the change that ends the task', async () => {
    const { handoffId } = await workingHandoff();
    await reportOverRest(s.tokens.bob, handoffId, { message: 'Almost' });
    const waiting = await reportOverRest(s.tokens.bob, handoffId, { message: 'Kept' });
    expect(waiting.body.committed).toBe(false);
    // alice is not the assignee: her completion is refused, and rolls back the report it applied first.
    const refused = await callTool(s, 'alice', 'handoff_complete', { handoff_id: handoffId, result: textResult('x') });
    expect((refused.body as { result: { isError?: boolean } }).result.isError).toBe(true);
    expect(progressEvents().map((event) => event.message)).toEqual(['Almost']);
    await toolOk(s, 'bob', 'handoff_complete', { handoff_id: handoffId, result: textResult('Done') });
    expect(progressEvents().map((event) => event.message)).toEqual(['Almost', 'Kept']);
  });
});
