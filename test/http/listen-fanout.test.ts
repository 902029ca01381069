// The listen fan-out's two promises: a stream's frame is the notification
// serialized once with the stream's subscription id spliced in, byte for
// byte what serializing it for that stream would give; and who may see a
// task is decided once per change, whatever the number of streams.
import { afterEach, describe, expect, test } from 'vitest';
import { taskViewers, type RoomChange } from '../helpers/engine.js';
import { frameTemplate, spliceFrame } from '../../src/mcp/frames.js';
import { ListenFanout, type FrameSink } from '../../src/mcp/listen-fanout.js';
import { SSE_FRAMING, sseFrame } from '../../src/http/mcp/sse.js';
import { createHandoff, isMethod, listen, nextFrame, textResult, toolOk, type Wire } from '../helpers/mcp-wire.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';

const ids: (string | number)[] = [
  0,
  7,
  -12,
  1.5,
  1e21,
  Number.MAX_SAFE_INTEGER,
  '',
  'listen-1',
  'a "quoted" id with a \\ backslash',
  'line\nbreak\ttab\rreturn',
  '\u0000\u001f control',
  '\u2028\u2029 separators',
  'é ü 😀 \ud800 lone surrogate',
  '</script><!--',
];

const uris = {
  artifact: 'workspace:///room.md',
  handoffs: 'workspace:///.room/handoffs',
  proposals: 'workspace:///.room/proposals',
  history: 'workspace:///.room/history',
};

function taskChange(taskId: string, owner: string, assignee: string | null, message = 'halfway'): RoomChange {
  return {
    event: { type: 'task.progress' },
    handoff: null,
    task: {
      detailed: { taskId, status: 'working', statusMessage: message, createdAt: '2026-12-03T00:00:00Z' },
      owner,
      assignee,
    },
  } as unknown as RoomChange;
}

const taskNotification = (change: RoomChange, id: unknown) => ({
  jsonrpc: '2.0',
  method: 'notifications/tasks',
  params: { ...change.task!.detailed, _meta: { [SUBSCRIPTION]: id } },
});

/** A socket that takes every frame (or none once `full`). */
function recordingSink(): FrameSink & { writes: string[]; full: boolean } {
  return {
    writes: [],
    full: false,
    sendFrame(frame) {
      this.writes.push(typeof frame === 'string' ? frame : Buffer.from(frame).toString('utf8'));
      return !this.full;
    },
    drained: () => new Promise(() => {}),
  };
}

describe('frames spliced from one serialization', () => {
  const change = taskChange('task_1', 'alice', 'bob', 'text "with" \\ escapes, \n newlines and ce-subscription-id');
  test.each(ids.map((id) => [JSON.stringify(id), id]))('id %s: the same bytes as JSON.stringify', (_name, id) => {
    const template = frameTemplate((placeholder) => taskNotification(change, placeholder), SSE_FRAMING);
    const spliced = spliceFrame(template, JSON.stringify(id));
    expect(spliced).toBe(sseFrame(taskNotification(change, id)));
    expect(spliced).toBe(`event: message\ndata: ${JSON.stringify(taskNotification(change, id))}\n\n`);
  });

  test('a template takes its id exactly once', () => {
    expect(() => frameTemplate(() => ({ no: 'id' }), SSE_FRAMING)).toThrow();
    expect(() => frameTemplate((id) => ({ a: id, b: id }), SSE_FRAMING)).toThrow();
  });
});

describe('ListenFanout', () => {
  test('decides who may see a task once per change, and each stream gets its own id', () => {
    let decided = 0;
    const fanout = new ListenFanout({
      uris,
      maxQueue: 10,
      framing: SSE_FRAMING,
      viewers: (task) => {
        decided += 1;
        return taskViewers(task);
      },
    });
    const watch = (participant: string, taskId: string) => ({
      participant,
      taskIds: new Set([taskId]),
      views: new Set<never>(),
    });
    const owners = Array.from({ length: 100 }, (_, i) => ({ id: i % 2 ? `alice-${i}` : i, sink: recordingSink() }));
    for (const { id, sink } of owners) fanout.add(id, watch('alice', 'task_1'), sink, () => {});
    const assignee = { id: 'bob-1', sink: recordingSink() };
    fanout.add(assignee.id, watch('bob', 'task_1'), assignee.sink, () => {});
    const others = Array.from({ length: 50 }, (_, i) => recordingSink());
    others.forEach((sink, i) => fanout.add(`mallory-${i}`, watch('mallory', 'task_1'), sink, () => {}));
    const elsewhere = recordingSink();
    fanout.add('alice-elsewhere', watch('alice', 'task_2'), elsewhere, () => {});
    expect(fanout.size).toBe(152);

    const change = taskChange('task_1', 'alice', 'bob');
    fanout.deliver([change]);
    expect(decided).toBe(1);
    for (const { id, sink } of [...owners, assignee]) {
      expect(sink.writes).toEqual([sseFrame(taskNotification(change, id))]);
    }
    for (const sink of [...others, elsewhere]) expect(sink.writes).toEqual([]);

    // Before the task has an assignee, only its owner sees it.
    fanout.deliver([taskChange('task_1', 'alice', null)]);
    expect(decided).toBe(2);
    expect(assignee.sink.writes).toHaveLength(1);
    expect(owners[0]!.sink.writes).toHaveLength(2);
  });

  test('streams whose listens had the same id share one frame, encoded once; other ids get their own', () => {
    const fanout = new ListenFanout({ uris, maxQueue: 10, framing: SSE_FRAMING });
    const sent: Uint8Array[][] = [];
    const sinkFor = (): FrameSink => {
      const mine: Uint8Array[] = [];
      sent.push(mine);
      return { sendFrame: (frame) => (mine.push(frame as Uint8Array), true), drained: () => Promise.resolve() };
    };
    const watch = { participant: 'alice', taskIds: new Set(['task_1']), views: new Set<never>() };
    const ids = [1, 1, 1, 'x', 'x', 2];
    for (const id of ids) fanout.add(id, watch, sinkFor(), () => {});
    const change = taskChange('task_1', 'alice', 'bob');
    fanout.deliver([change]);
    sent.forEach(([frame], i) => {
      expect(Buffer.from(frame!).toString('utf8')).toBe(sseFrame(taskNotification(change, ids[i])));
    });
    expect(new Set(sent.map(([frame]) => frame)).size).toBe(3);
    expect(sent[0]![0]).toBe(sent[2]![0]);
    expect(sent[3]![0]).toBe(sent[4]![0]);
  });

  test('a stream watching views and the task gets their frames in one write, views first', () => {
    const fanout = new ListenFanout({ uris, maxQueue: 10, framing: SSE_FRAMING });
    const sink = recordingSink();
    fanout.add(
      'both',
      { participant: 'alice', taskIds: new Set(['task_1']), views: new Set(['handoffs']) },
      sink,
      () => {},
    );
    const change = taskChange('task_1', 'alice', null);
    fanout.deliver([change]);
    const updated = {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: uris.handoffs, _meta: { [SUBSCRIPTION]: 'both' } },
    };
    expect(sink.writes).toEqual([sseFrame(updated) + sseFrame(taskNotification(change, 'both'))]);
  });

  test("a commit's changes go to each stream in one write, in the order committed, only those it follows", () => {
    const fanout = new ListenFanout({ uris, maxQueue: 10, framing: SSE_FRAMING });
    const one = recordingSink();
    const other = recordingSink();
    const neither = recordingSink();
    fanout.add('one', { participant: 'alice', taskIds: new Set(['task_1']), views: new Set() }, one, () => {});
    fanout.add('other', { participant: 'alice', taskIds: new Set(['task_2']), views: new Set() }, other, () => {});
    fanout.add('neither', { participant: 'alice', taskIds: new Set(['task_3']), views: new Set() }, neither, () => {});
    const commit = [
      taskChange('task_1', 'alice', null, 'first'),
      taskChange('task_2', 'alice', null, 'second'),
      taskChange('task_1', 'alice', null, 'third'),
    ];
    fanout.deliver(commit);
    expect(one.writes).toEqual([
      sseFrame(taskNotification(commit[0]!, 'one')) + sseFrame(taskNotification(commit[2]!, 'one')),
    ]);
    expect(other.writes).toEqual([sseFrame(taskNotification(commit[1]!, 'other'))]);
    expect(neither.writes).toEqual([]);
  });

  test('behind a full socket frames wait; past the queue the stream is dropped as lagging', () => {
    const fanout = new ListenFanout({ uris, maxQueue: 2, framing: SSE_FRAMING });
    const sink = recordingSink();
    const reasons: string[] = [];
    fanout.add(1, { participant: 'alice', taskIds: new Set(['task_1']), views: new Set() }, sink, (reason) =>
      reasons.push(reason),
    );
    sink.full = true;
    for (let i = 0; i < 4; i++) fanout.deliver([taskChange('task_1', 'alice', null, `report ${i}`)]);
    expect(sink.writes).toHaveLength(1); // the first filled the socket; two waited; the fourth overflowed
    expect(reasons).toEqual(['lagging']);
    expect(fanout.size).toBe(0);
  });

  test('what all paused streams hold together is bounded: the stream whose frame would pass it is dropped as lagging', () => {
    const big = 'x'.repeat(1000);
    const fanout = new ListenFanout({ uris, maxQueue: 1000, maxQueuedBytes: 5 * 1024, framing: SSE_FRAMING });
    const reasons: string[] = [];
    const sinks = [1, 2].map((id) => {
      const sink = recordingSink();
      // Ids of their own: each stream has its own copy of every frame.
      fanout.add(id, { participant: 'alice', taskIds: new Set(['task_1']), views: new Set() }, sink, (reason) =>
        reasons.push(`${id}: ${reason}`),
      );
      sink.full = true;
      return sink;
    });
    // The first change fills each socket; the next ones queue, about 1.2 KB a stream each, until 5 KiB in all.
    for (let i = 0; i < 4; i++) fanout.deliver([taskChange('task_1', 'alice', null, `${big} ${i}`)]);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^[12]: lagging$/);
    expect(fanout.size).toBe(1);
    for (const sink of sinks) expect(sink.writes).toHaveLength(1);
    // The dropped stream's bytes are free again: the one left may queue as many.
    fanout.deliver([taskChange('task_1', 'alice', null, `${big} 4`)]);
    expect(reasons).toHaveLength(1);
  });

  test('a stream whose session ended gets nothing: it is closed at the delivery that finds it so', () => {
    const fanout = new ListenFanout({ uris, maxQueue: 10, framing: SSE_FRAMING });
    const ended = recordingSink();
    const live = recordingSink();
    const reasons: string[] = [];
    let holds = true;
    const watch = { participant: 'alice', taskIds: new Set(['task_1']), views: new Set(['handoffs'] as const) };
    fanout.add(
      'ended',
      watch,
      ended,
      (reason) => reasons.push(reason),
      () => holds,
    );
    fanout.add('live', watch, live, () => {});
    fanout.deliver([taskChange('task_1', 'alice', null, 'before')]);
    holds = false;
    fanout.deliver([taskChange('task_1', 'alice', null, 'after')]);
    expect(ended.writes).toHaveLength(1);
    expect(ended.writes[0]).toContain('before');
    expect(live.writes).toHaveLength(2);
    expect(reasons).toEqual(['session_ended']);
    expect(fanout.size).toBe(1);
  });
});

describe('over real HTTP', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  test('streams on one task each get the notification with their own subscription id; others see nothing', async () => {
    s = await startTestServer();
    const { handoffId, taskId } = await createHandoff(s, 'alice', { summary: 'fan out', assignee: 'bob' });
    const ids = [7, 'a "quoted" \\ id\n', 'listen-3'];
    const owners = await Promise.all(ids.map((id) => listen(s!, 'alice', { taskIds: [taskId] }, { tasks: true, id })));
    for (const client of owners) await nextFrame(client, isMethod('notifications/subscriptions/acknowledged'), 'ack');
    // carol cannot see the task: her listen acknowledges no task ids.
    const carol = await listen(s, 'carol', { taskIds: [taskId] }, { tasks: true, id: 'carol' });
    const ack = await nextFrame(carol, isMethod('notifications/subscriptions/acknowledged'), 'carol ack');
    expect(ack.params.notifications.taskIds).toEqual([]);

    await toolOk(s, 'bob', 'handoff_accept', { handoff_id: handoffId });
    await toolOk(s, 'bob', 'handoff_complete', { handoff_id: handoffId, result: textResult('done') });
    const completed = (frame: Wire) => frame?.method === 'notifications/tasks' && frame.params.status === 'completed';
    for (const [i, client] of owners.entries()) {
      const frame = await nextFrame(client, completed, `completion on stream ${i}`);
      expect(frame.params.taskId).toBe(taskId);
      expect(frame.params._meta).toEqual({ [SUBSCRIPTION]: ids[i] });
    }
    expect(carol.frames.filter(isMethod('notifications/tasks'))).toEqual([]);
    for (const client of [...owners, carol]) client.abort();
  });
});
