// Cases about who may see what: a task read through every door by someone
// who is neither its owner nor its assignee (it must answer as an unknown id
// does), and requests made with tokens that open no session.
import fc from 'fast-check';
import type { FuzzCase, FuzzWorld } from './cases.js';
import { mcpRequest, type McpCall } from './mcp-cases.js';
import { restCalls, restRequest, routeOf, type RestCall } from './rest-cases.js';

/** Every way to read, answer or cancel a task, or to ask for its updates. */
export const TASK_DOORS = [
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'subscriptions/listen',
  'GET /workspace/task',
  'POST /workspace/task/cancel',
  'POST /workspace/task/input-responses',
] as const;
export type TaskDoor = (typeof TASK_DOORS)[number];

/** Participants who own no task and are assigned none; the operator token reaches REST only. */
export type Stranger = 'carol' | 'dave' | 'operator as carol';

/** A request for `taskId` through `door` by a stranger to it. */
export function taskRequest(world: FuzzWorld, door: TaskDoor, stranger: Stranger, taskId: string): FuzzCase {
  const kind = `foreign task: ${door}`;
  if (door.startsWith('GET ') || door.startsWith('POST ')) {
    const who =
      stranger === 'operator as carol'
        ? { token: world.operatorToken, actAs: 'carol' }
        : { token: world.tokens[stranger] };
    const call: RestCall =
      door === 'GET /workspace/task'
        ? { route: routeOf('getTask'), pathParams: {}, query: [['id', taskId]], ...who }
        : door === 'POST /workspace/task/cancel'
          ? { route: routeOf('cancelTask'), pathParams: {}, query: [], body: { task_id: taskId }, ...who }
          : {
              route: routeOf('answerTaskInput'),
              pathParams: {},
              query: [],
              body: { task_id: taskId, input_responses: { tone: { action: 'decline' } } },
              ...who,
            };
    return { kind, request: restRequest(call), expect: { is: 'refused' } };
  }
  const token = stranger === 'dave' ? world.tokens.dave : world.tokens.carol;
  const params =
    door === 'subscriptions/listen'
      ? { notifications: { taskIds: [taskId] } }
      : door === 'tasks/update'
        ? { taskId, inputResponses: { tone: { action: 'decline' } } }
        : { taskId };
  const call: McpCall = { method: door, params, token, id: 7, tasks: true };
  const listen = door === 'subscriptions/listen';
  // A listen is granted, but acknowledges only the task ids it will send: none here.
  return { kind, request: mcpRequest(call), expect: listen ? { is: 'stream' } : { is: 'refused' }, firstEvent: listen };
}

/** Task ids no task has: of a real id's shape, or any text (at least 8 characters, so masking one in an answer never masks the room's own words). */
export const madeUpTaskId = (world: FuzzWorld): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.stringMatching(/^tk_[A-Za-z0-9_-]{22}$/),
      fc.string({ unit: 'grapheme', minLength: 8, maxLength: 40 }).filter((s) => [...s].length <= 100),
      fc.string({ minLength: 8, maxLength: 100 }).map((s) => s.replace(/[\ud800-\udfff]/g, 'x')),
    )
    .filter((id) => ![world.ids.openTask, world.ids.acceptedTask, world.ids.unassignedTask].includes(id));

/** A request of either door, to be sent with each token that opens no session. */
export function refusedTokenRequests(world: FuzzWorld): fc.Arbitrary<(token: string) => FuzzCase> {
  const mcp = fc
    .constantFrom<[string, Record<string, unknown>]>(
      ['tools/list', {}],
      ['tasks/get', { taskId: world.ids.openTask }],
      ['tools/call', { name: 'handoff_create', arguments: { summary: 'Not by a stranger' } }],
      ['subscriptions/listen', { notifications: { resourceSubscriptions: [world.ids.artifactUri] } }],
      ['resources/read', { uri: world.ids.artifactUri }],
    )
    .map(([method, params]) => (token: string): FuzzCase => ({
      kind: 'refused token: mcp',
      request: mcpRequest({ method, params, token, id: 3, tasks: true }),
      expect: { is: 'rpc', status: 401, codes: [-32600] },
    }));
  const rest = restCalls(world).map((call) => (token: string): FuzzCase => ({
    kind: 'refused token: rest',
    request: restRequest({ ...call, token, actAs: undefined }),
    expect: { is: 'problem', status: 401, code: 'unauthorized' },
  }));
  return fc.oneof(mcp, rest);
}
