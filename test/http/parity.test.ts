// Three doors, one engine: the same handoff lifecycle driven through MCP (raw
// JSON-RPC), through REST (fetch), and through what ce can do (ce has no
// create/accept/complete: the engine drives those, `ce task-cancel` cancels
// through the running room, and ce reads the outcome) ends in the same stored
// state and the same sequence of events.
//
//   H1: alice creates for bob → bob accepts → bob asks for input → alice
//       answers → bob completes with a result → dave approves
//   H2: alice creates for bob → alice, the owner, cancels its task
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type {
  CallToolResult,
  DetailedTask,
  Handoff,
  HandoffEventsOutput,
  HandoffTaskOutput,
} from '../../generated/types.js';
import {
  acceptHandoff,
  answerTaskInput,
  approveHandoff,
  completeHandoff,
  createHandoff,
  getHandoff,
  getTask,
  listHandoffEvents,
  LOCAL_OPERATOR,
  requestHandoffInput,
} from '../helpers/engine.js';
import { callTool, taskRpc, toolOk, type Who, type Wire } from '../helpers/mcp-wire.js';
import { caller } from '../helpers/room.js';
import { ce, okJson } from '../helpers/run-ce.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const H1 = { summary: 'Write the introduction', constraints: 'One paragraph', assignee: 'bob' };
const H2 = { summary: 'Draft the outline', assignee: 'bob' };
const QUESTION = 'Formal or casual?';
const ANSWER = { action: 'accept', content: { answer: 'casual' } } as const;
const RESULT: CallToolResult = { content: [{ type: 'text', text: 'A casual introduction' }] };
const NOTE = 'Good';

interface Ids {
  handoffId: string;
  taskId: string;
}

/** What a door did: the two handoffs it made. */
interface Driven {
  first: Ids;
  second: Ids;
}

// ---------------------------------------------------------------------------
// The doors

async function throughMcp(s: TestServer): Promise<Driven> {
  // With the Tasks extension, handoff_create answers with a task handle.
  const created = await callTool(s, 'alice', 'handoff_create', H1, { tasks: true });
  expect(created.status, created.text).toBe(200);
  const first = {
    handoffId: created.body.result._meta['commonroom/handoff_id'] as string,
    taskId: created.body.result.taskId as string,
  };
  await toolOk(s, 'bob', 'handoff_accept', { handoff_id: first.handoffId });
  const { key } = await toolOk(s, 'bob', 'handoff_request_input', { handoff_id: first.handoffId, message: QUESTION });
  const answered = await taskRpc(s, 'alice', 'tasks/update', {
    taskId: first.taskId,
    inputResponses: { [key]: ANSWER },
  });
  expect(answered.body.result, JSON.stringify(answered.body)).toBeDefined();
  await toolOk(s, 'bob', 'handoff_complete', { handoff_id: first.handoffId, result: RESULT });
  await toolOk(s, 'dave', 'handoff_approve', { handoff_id: first.handoffId, note: NOTE });

  // Without it, the handoff and its ids.
  const { handoff } = await toolOk(s, 'alice', 'handoff_create', H2);
  const second = { handoffId: handoff.handoff_id, taskId: handoff.task_id };
  const cancelled = await taskRpc(s, 'alice', 'tasks/cancel', { taskId: second.taskId });
  expect(cancelled.body.result, JSON.stringify(cancelled.body)).toBeDefined();
  return { first, second };
}

/** One REST call as `who` that must answer `status`; its JSON body. */
async function rest(s: TestServer, who: Who, method: string, route: string, body?: unknown, status = 200) {
  const response = await fetch(`${s.http.baseUrl}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${s.tokens[who]}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Wire;
  expect(response.status, `${method} ${route} by ${who}: ${JSON.stringify(json)}`).toBe(status);
  return json;
}

async function throughRest(s: TestServer): Promise<Driven> {
  const h1 = (await rest(s, 'alice', 'POST', '/workspace/handoffs', H1, 201)).handoff;
  const first = { handoffId: h1.handoff_id, taskId: h1.task_id };
  const at = `/workspace/handoffs/${first.handoffId}`;
  await rest(s, 'bob', 'POST', `${at}/accept`);
  const { key } = await rest(s, 'bob', 'POST', `${at}/input-requests`, { message: QUESTION }, 201);
  await rest(s, 'alice', 'POST', '/workspace/task/input-responses', {
    task_id: first.taskId,
    input_responses: { [key]: ANSWER },
  });
  await rest(s, 'bob', 'POST', `${at}/complete`, { result: RESULT });
  await rest(s, 'dave', 'POST', `${at}/approve`, { note: NOTE });

  const h2 = (await rest(s, 'alice', 'POST', '/workspace/handoffs', H2, 201)).handoff;
  const second = { handoffId: h2.handoff_id, taskId: h2.task_id };
  await rest(s, 'alice', 'POST', '/workspace/task/cancel', { task_id: second.taskId });
  return { first, second };
}

/** ce cannot create, accept or complete: the engine does; ce cancels, through the running room. */
async function throughCe(s: TestServer): Promise<Driven> {
  const { room } = s;
  const alice = caller('alice');
  const bob = caller('bob');
  const h1 = createHandoff(room, alice, H1).handoff;
  const first = { handoffId: h1.handoff_id, taskId: h1.task_id };
  acceptHandoff(room, bob, { handoff_id: first.handoffId });
  const { key } = requestHandoffInput(room, bob, { handoff_id: first.handoffId, message: QUESTION });
  answerTaskInput(room, alice, { task_id: first.taskId, input_responses: { [key]: ANSWER } });
  completeHandoff(room, bob, { handoff_id: first.handoffId, result: RESULT });
  approveHandoff(room, caller('dave', ['read', 'approve']), { handoff_id: first.handoffId, note: NOTE });

  const h2 = createHandoff(room, alice, H2).handoff;
  const second = { handoffId: h2.handoff_id, taskId: h2.task_id };
  const cancelled = okJson(await ce(['task-cancel', s.artifact, second.taskId, '--participant', 'alice', '--json']));
  expect(cancelled).toMatchObject({ cancelled: true, task: { taskId: second.taskId, status: 'cancelled' } });
  return { first, second };
}

// ---------------------------------------------------------------------------
// The outcome, as stored

interface Outcome {
  handoffs: Handoff[];
  /** As their owner reads them. */
  tasks: DetailedTask[];
  events: HandoffEventsOutput[];
  /** Every handoff event of the room, in order. */
  eventTypes: string[];
}

function stored(s: TestServer, { first, second }: Driven): Outcome {
  const { room } = s;
  const both = [first, second];
  return {
    handoffs: both.map(({ handoffId }) => getHandoff(room, LOCAL_OPERATOR, { handoff_id: handoffId }).handoff),
    tasks: both.map(({ taskId }) => getTask(room, caller('alice'), { task_id: taskId })),
    events: both.map(({ handoffId }) => listHandoffEvents(room, LOCAL_OPERATOR, { handoff_id: handoffId })),
    eventTypes: (
      room.store.db.prepare('SELECT type FROM events WHERE handoff_id IS NOT NULL ORDER BY id').all() as {
        type: string;
      }[]
    ).map(({ type }) => type),
  };
}

const ID = /^(ho|tk|in)_[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * The outcome with what is the room's own choice made comparable: ids become
 * `ho#1`, `tk#2`, `in#1` in order of first appearance (so which id is where
 * still counts), correlation ids `uuid#n`, timestamps `<time>`, event ids
 * their order.
 */
function normalized(value: unknown): unknown {
  const names = new Map<string, string>();
  const counts = new Map<string, number>();
  const rename = (text: string, kind: string): string => {
    if (!names.has(text)) {
      const n = (counts.get(kind) ?? 0) + 1;
      counts.set(kind, n);
      names.set(text, `${kind}#${n}`);
    }
    return names.get(text)!;
  };
  const eventIds = new Map<number, string>();
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') {
      if (ID.test(v)) return rename(v, v.slice(0, 2));
      if (UUID.test(v)) return rename(v, 'uuid');
      if (TIMESTAMP.test(v)) return '<time>';
      return v;
    }
    if (typeof v === 'number' && (key === 'id' || key === 'next_after' || key === 'after')) {
      if (!eventIds.has(v)) eventIds.set(v, `event#${eventIds.size + 1}`);
      return eventIds.get(v);
    }
    if (Array.isArray(v)) return v.map((item) => walk(item));
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [walk(k) as string, walk(item, k)]));
    }
    return v;
  };
  return walk(value);
}

/** tasks/get answers the DetailedTask inside MCP's result envelope (resultType, _meta). */
function withoutEnvelope({ resultType, _meta, ...task }: Wire): Wire {
  expect(resultType).toBe('complete');
  return task;
}

// ---------------------------------------------------------------------------

describe('the same handoff lifecycle through MCP, REST and ce', () => {
  const doors = {
    mcp: { drive: throughMcp },
    rest: { drive: throughRest },
    ce: { drive: throughCe },
  };
  type Door = keyof typeof doors;
  const servers = {} as Record<Door, TestServer>;
  const driven = {} as Record<Door, Driven>;

  beforeAll(async () => {
    for (const door of Object.keys(doors) as Door[]) {
      servers[door] = await startTestServer();
      driven[door] = await doors[door].drive(servers[door]);
    }
  }, 120_000);
  afterAll(async () => {
    for (const s of Object.values(servers)) await s.stop();
  });

  test('ends in the same stored state and the same events, whatever the door', () => {
    const outcomes = Object.fromEntries(
      (Object.keys(doors) as Door[]).map((door) => [door, stored(servers[door], driven[door])]),
    ) as Record<Door, Outcome>;

    const { mcp } = outcomes;
    expect(mcp.handoffs.map((h) => h.status)).toEqual(['approved', 'cancelled']);
    expect(mcp.tasks.map((t) => t.status)).toEqual(['completed', 'cancelled']);
    expect(mcp.events.map(({ events }) => events.map((e) => e.type))).toEqual([
      [
        'handoff.created',
        'handoff.accepted',
        'task.input_required',
        'task.input_received',
        'handoff.result_ready',
        'handoff.approved',
      ],
      ['handoff.created', 'handoff.cancelled'],
    ]);
    expect(mcp.handoffs[0]).toMatchObject({
      ...H1,
      owner: 'alice',
      inputs: [{ request: { params: { message: QUESTION } }, response: ANSWER, answered_by: 'alice' }],
      result: RESULT,
      decision: { by: 'dave', note: NOTE },
    });

    for (const door of ['rest', 'ce'] as const) {
      expect(normalized(outcomes[door]), `${door} against mcp`).toEqual(normalized(mcp));
    }
  });

  test('MCP and REST read back what is stored', async () => {
    const reads = {
      mcp: async (s: TestServer, { handoffId, taskId }: Ids) => ({
        handoff: await toolOk(s, 'alice', 'handoff_get', { handoff_id: handoffId }),
        events: await toolOk(s, 'alice', 'handoff_events', { handoff_id: handoffId }),
        task: withoutEnvelope((await taskRpc(s, 'alice', 'tasks/get', { taskId })).body.result),
      }),
      rest: async (s: TestServer, { handoffId, taskId }: Ids) => ({
        handoff: await rest(s, 'alice', 'GET', `/workspace/handoffs/${handoffId}`),
        events: await rest(s, 'alice', 'GET', `/workspace/handoffs/${handoffId}/events`),
        task: await rest(s, 'alice', 'GET', `/workspace/task?id=${taskId}`),
      }),
    };
    for (const door of ['mcp', 'rest'] as const) {
      const s = servers[door];
      for (const ids of [driven[door].first, driven[door].second]) {
        const alice = caller('alice');
        expect(await reads[door](s, ids), door).toEqual({
          handoff: getHandoff(s.room, alice, { handoff_id: ids.handoffId }),
          events: listHandoffEvents(s.room, alice, { handoff_id: ids.handoffId }),
          task: getTask(s.room, alice, { task_id: ids.taskId }),
        });
      }
    }
  });

  test('ce reads back what is stored', async () => {
    const s = servers.ce;
    const file = s.artifact;
    for (const { handoffId, taskId } of [driven.ce.first, driven.ce.second]) {
      const [handoff, events, task] = await Promise.all([
        ce(['handoff', file, handoffId, '--json']),
        ce(['handoff-events', file, handoffId, '--json']),
        ce(['task', file, taskId, '--participant', 'alice', '--json']),
      ]);
      expect(okJson<HandoffTaskOutput>(handoff)).toEqual(getHandoff(s.room, LOCAL_OPERATOR, { handoff_id: handoffId }));
      expect(okJson<HandoffEventsOutput>(events)).toEqual(
        listHandoffEvents(s.room, LOCAL_OPERATOR, { handoff_id: handoffId }),
      );
      expect(okJson<DetailedTask>(task)).toEqual(getTask(s.room, caller('alice'), { task_id: taskId }));
    }
  }, 60_000);
});
