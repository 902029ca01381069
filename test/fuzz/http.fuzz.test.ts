// Seeded fuzzing of the room over real HTTP against `ce serve`: MCP and REST
// requests with one thing broken (or several, at random), checked against
// the README's error tables, with the whole database compared before and
// after every refused request.
//
// FUZZ_SEED picks the seed (fixed by default; fast-check prints it with any
// failure, with the path of the failing case, which FUZZ_PATH replays);
// FUZZ_RUNS the number of cases of the main property (the others scale with
// it). `FUZZ_RUNS=100000 npm run fuzz` is the long run.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer, describeExchange, leakPatterns, RuleBroken } from './answer-rules.js';
import { chaos, MIB, type FuzzCase } from './cases.js';
import { startFuzzRoom, type FuzzRoom } from './fuzz-room.js';
import { limitCases, mcpCases, mcpRequest, type McpCall } from './mcp-cases.js';
import { otherPathCases, restCalls, restCases, restRequest, routeOf } from './rest-cases.js';
import { WireClient, type WireAnswer, type WireRequest } from './wire.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_202);
const RUNS = Number(process.env.FUZZ_RUNS ?? 4_000);
/** A request not answered in this time is a hang. */
const DEADLINE_MS = 15_000;
/** The vitest time limit of a property: generous, so only a hang (caught by DEADLINE_MS) ever fails one. */
const timeFor = (runs: number) => 120_000 + runs * 100;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let room: FuzzRoom;
let client: WireClient;
/** The database as of the last answer. */
let baseline: string;
let leaks: RegExp[];
const sent = new Map<string, number>();

beforeAll(async () => {
  room = await startFuzzRoom();
  client = new WireClient(room.baseUrl, DEADLINE_MS);
  baseline = room.dump();
  leaks = leakPatterns([repoRoot, tmpdir()]);
}, 60_000);

afterAll(async () => {
  client?.close();
  await room?.stop();
  const total = [...sent.values()].reduce((a, b) => a + b, 0);
  const classes = new Set([...sent.keys()].map((kind) => kind.split(':')[0]));
  process.stdout.write(`fuzz: ${total} requests in ${sent.size} kinds (${classes.size} classes), seed ${SEED}\n`);
});

const count = (kind: string) => sent.set(kind, (sent.get(kind) ?? 0) + 1);

/** A request every room answers at once; after a suspicious request, it shows the connection still works. */
const followUp = (): WireRequest => ({
  method: 'GET',
  path: '/workspace/artifact',
  headers: [['authorization', `Bearer ${room.tokens.carol}`]],
});

/**
 * Sends one case and checks it: the general rules and the case's
 * expectation, the database unchanged unless it succeeded, and the
 * connection still answering when the case asks.
 */
async function exchange(c: FuzzCase): Promise<WireAnswer> {
  count(c.kind);
  const answer = await client.send(c.request, { firstEvent: c.firstEvent ?? false }).catch((error: Error) => {
    baseline = room.dump();
    throw new RuleBroken(`[${c.kind}] ${error.message}\n${describeExchange(c.request, null)}`);
  });
  const before = baseline;
  let broken: unknown;
  let success = false;
  try {
    success = checkAnswer(c.request, answer, c.expect, leaks).success;
  } catch (error) {
    broken = error;
  }
  // The next case compares with the database as it is now, whatever happened.
  baseline = room.dump();
  if (broken) throw Object.assign(broken as Error, { message: `[${c.kind}] ${(broken as Error).message}` });
  if (!success && baseline !== before) {
    throw new RuleBroken(
      `[${c.kind}] a refused request changed the database:\n${room.difference(before, baseline)}\n${describeExchange(c.request, answer)}`,
    );
  }
  if (c.followUp) {
    count('follow-up on the same connection');
    const next = await client.send(followUp()).catch((error: Error) => {
      throw new RuleBroken(
        `[${c.kind}] the next request on the same connection got no answer (${error.message})\n${describeExchange(c.request, answer)}`,
      );
    });
    if (next.status !== 200) {
      throw new RuleBroken(
        `[${c.kind}] the request after it was not answered 200\n${describeExchange(c.request, answer)}\n${describeExchange(followUp(), next)}`,
      );
    }
  }
  return answer;
}

/** fast-check shows a failing case by its kind and request line; the failure itself shows all of it. */
const named = (c: FuzzCase): FuzzCase =>
  Object.assign(c, { [fc.toStringMethod]: () => `${c.kind}: ${c.request.method} ${c.request.path.slice(0, 200)}` });

const REPLAY = process.env.FUZZ_PATH;
const settings = (numRuns: number): fc.Parameters<unknown> => ({
  seed: SEED,
  numRuns,
  ...(REPLAY ? { path: REPLAY, endOnFailure: true } : {}),
});

describe('fuzzing the room over HTTP (ce serve)', () => {
  it(
    'every answer is a success, a notification, a stream or an error the README pairs with its status; a refusal changes nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc
            .oneof(
              { weight: 10, arbitrary: mcpCases(room) },
              { weight: 10, arbitrary: restCases(room) },
              { weight: 2, arbitrary: otherPathCases(room) },
              { weight: 3, arbitrary: chaos(fc.oneof(mcpCases(room), restCases(room)), room) },
              { weight: 1, arbitrary: limitCases(room) },
            )
            .map(named),
          async (c) => {
            await exchange(c);
          },
        ),
        settings(RUNS),
      );
    },
    timeFor(RUNS),
  );

  const foreignRuns = Math.max(50, Math.round(RUNS / 12));
  it(
    'a task read, answered or cancelled by someone who is neither its owner nor its assignee answers exactly as an unknown id',
    async () => {
      const doors = [
        'tasks/get',
        'tasks/update',
        'tasks/cancel',
        'subscriptions/listen',
        'GET task',
        'POST cancel',
        'POST input-responses',
      ] as const;
      type Door = (typeof doors)[number];
      const request = (door: Door, reader: 'carol' | 'dave' | 'operator as carol', taskId: string): FuzzCase => {
        if (door.startsWith('GET') || door.startsWith('POST')) {
          const operationId =
            door === 'GET task' ? 'getTask' : door === 'POST cancel' ? 'cancelTask' : 'answerTaskInput';
          const route = routeOf(operationId);
          const who =
            reader === 'operator as carol'
              ? { token: room.operatorToken, actAs: 'carol' }
              : { token: room.tokens[reader] };
          const body =
            operationId === 'getTask'
              ? undefined
              : operationId === 'cancelTask'
                ? { task_id: taskId }
                : { task_id: taskId, input_responses: { tone: { action: 'decline' } } };
          return {
            kind: `foreign task: ${door}`,
            request: restRequest({
              route,
              pathParams: {},
              query: operationId === 'getTask' ? [['id', taskId]] : [],
              ...(body ? { body } : {}),
              ...who,
            }),
            expect: { is: 'refused' },
          };
        }
        const token = reader === 'dave' ? room.tokens.dave : room.tokens.carol;
        const call: McpCall =
          door === 'subscriptions/listen'
            ? { method: door, params: { notifications: { taskIds: [taskId] } }, token, id: 7, tasks: true }
            : door === 'tasks/update'
              ? {
                  method: door,
                  params: { taskId, inputResponses: { tone: { action: 'decline' } } },
                  token,
                  id: 7,
                  tasks: true,
                }
              : { method: door, params: { taskId }, token, id: 7, tasks: true };
        return {
          kind: `foreign task: ${door}`,
          request: mcpRequest(call),
          expect: door === 'subscriptions/listen' ? { is: 'stream' } : { is: 'refused' },
          firstEvent: door === 'subscriptions/listen',
        };
      };
      const madeUp = fc
        .oneof(
          fc.stringMatching(/^tk_[A-Za-z0-9_-]{22}$/),
          // At least 8 characters, so masking the id in an answer never masks the room's own words.
          fc.string({ unit: 'grapheme', minLength: 8, maxLength: 40 }).filter((s) => [...s].length <= 100),
          fc.string({ minLength: 8, maxLength: 100 }).map((s) => s.replace(/[\ud800-\udfff]/g, 'x')),
        )
        .filter((id) => ![room.ids.openTask, room.ids.acceptedTask, room.ids.unassignedTask].includes(id));
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...doors),
          fc.constantFrom('carol' as const, 'dave' as const, 'operator as carol' as const),
          fc.constantFrom(room.ids.openTask, room.ids.acceptedTask, room.ids.unassignedTask),
          madeUp,
          async (door, reader, real, unknown) => {
            const as =
              door.startsWith('GET') || door.startsWith('POST')
                ? reader
                : reader === 'operator as carol'
                  ? 'carol'
                  : reader;
            const forReal = await exchange(request(door, as, real));
            const forUnknown = await exchange(request(door, as, unknown));
            const shown = (answer: WireAnswer, id: string) => ({
              status: answer.status,
              type: answer.headers['content-type'],
              body: answer.body.split(JSON.stringify(id).slice(1, -1)).join('<id>'),
            });
            expect(
              shown(forReal, real),
              `${door} by ${as}: a real task of another participant and a made-up id`,
            ).toEqual(shown(forUnknown, unknown));
          },
        ),
        settings(foreignRuns),
      );
    },
    timeFor(foreignRuns * 2),
  );

  const tokenRuns = Math.max(30, Math.round(RUNS / 25));
  it(
    'a revoked, expired, removed or unknown token gets the same 401 on every request, and nothing is read or written',
    async () => {
      const refusedTokens = () => [
        room.refused.revoked,
        room.refused.expired,
        room.refused.removed,
        room.refused.unknown,
      ];
      const mcpCall = fc
        .constantFrom<McpCall['method']>(
          'tools/list',
          'tasks/get',
          'tools/call',
          'subscriptions/listen',
          'resources/read',
        )
        .map((method): McpCall => ({
          method,
          params:
            method === 'tasks/get'
              ? { taskId: room.ids.openTask }
              : method === 'tools/call'
                ? { name: 'handoff_create', arguments: { summary: 'Not by a stranger' } }
                : method === 'subscriptions/listen'
                  ? { notifications: { resourceSubscriptions: [room.ids.artifactUri] } }
                  : method === 'resources/read'
                    ? { uri: room.ids.artifactUri }
                    : {},
          token: '',
          id: 3,
          tasks: true,
        }));
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            mcpCall.map((call) => ({ mcp: call })),
            restCalls(room).map((call) => ({ rest: call })),
          ),
          async (which) => {
            const answers: WireAnswer[] = [];
            for (const token of refusedTokens()) {
              const c: FuzzCase =
                'mcp' in which
                  ? {
                      kind: 'refused token: mcp',
                      request: mcpRequest({ ...which.mcp, token }),
                      expect: { is: 'rpc', status: 401, codes: [-32600] },
                    }
                  : {
                      kind: 'refused token: rest',
                      request: restRequest({ ...which.rest, token, actAs: undefined }),
                      expect: { is: 'problem', status: 401, code: 'unauthorized' },
                    };
              answers.push(await exchange(c));
            }
            const shown = answers.map(({ status, headers, body }) => ({
              status,
              type: headers['content-type'],
              auth: headers['www-authenticate'],
              body,
            }));
            for (const answer of shown.slice(1)) expect(answer, 'every refused token reads the same').toEqual(shown[0]);
          },
        ),
        settings(tokenRuns),
      );
    },
    timeFor(tokenRuns * 4),
  );

  const limitRuns = Math.max(20, Math.round(RUNS / 50));
  it(
    'limits hold at their edges: 2,000 code points, 256 KiB of result, 1 MiB of body (with or without Content-Length)',
    async () => {
      const bodyEdge = fc
        .tuple(fc.constantFrom(-1, 0, 1, 100), fc.boolean(), fc.boolean())
        .map(([delta, chunked, onMcp]): FuzzCase => {
          // A valid request padded with spaces inside its JSON to exactly 1 MiB + delta bytes.
          const call: McpCall = { method: 'tools/list', params: {}, token: room.tokens.carol, id: 9, tasks: false };
          const base = onMcp
            ? mcpRequest(call)
            : restRequest({
                route: routeOf('createHandoff'),
                pathParams: {},
                query: [],
                body: { summary: 'Padded' },
                token: room.tokens.alice,
              });
          const text = base.body!.toString('utf8');
          const padded = `${text.slice(0, -1)}${' '.repeat(MIB + delta - text.length)}}`;
          const over = delta > 0;
          return {
            kind: `limit: a body of 1 MiB ${delta >= 0 ? '+' : '-'} ${Math.abs(delta)}${chunked ? ', chunked' : ''}`,
            request: { ...base, body: Buffer.from(padded), chunked },
            expect: over
              ? onMcp
                ? { is: 'rpc', status: 413, codes: [-32600] }
                : { is: 'problem', status: 413, code: 'too_large' }
              : onMcp
                ? { is: 'answered' }
                : { is: 'any', notStatus: [413] },
            followUp: true,
          };
        });
      await fc.assert(
        fc.asyncProperty(fc.oneof(limitCases(room), bodyEdge).map(named), async (c) => {
          await exchange(c);
        }),
        settings(limitRuns),
      );
    },
    timeFor(limitRuns * 2),
  );

  it('the room process logged no failure', () => {
    expect(room.served.stderr()).not.toMatch(/failed/);
  });
});
