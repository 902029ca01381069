// Seeded fuzzing of the room over real HTTP against `ce serve`: MCP and REST
// requests with one thing broken (or several, at random), checked against
// the reference's error tables, with the whole database compared before and
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
import { madeUpTaskId, refusedTokenRequests, taskRequest, TASK_DOORS, type Stranger } from './access-cases.js';
import { bodyAtTheLimit, oversizedCases } from './body-limit-cases.js';
import { chaos, type FuzzCase } from './cases.js';
import { startFuzzRoom, type FuzzRoom } from './fuzz-room.js';
import { limitCases, mcpCases } from './mcp-cases.js';
import { otherPathCases, restCases } from './rest-cases.js';
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
    'every answer is a success, a notification, a stream or an error the reference pairs with its status; a refusal changes nothing',
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
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...TASK_DOORS),
          fc.constantFrom<Stranger>('carol', 'dave', 'operator as carol'),
          fc.constantFrom(room.ids.openTask, room.ids.acceptedTask, room.ids.unassignedTask),
          madeUpTaskId(room),
          async (door, stranger, real, unknown) => {
            const forReal = await exchange(taskRequest(room, door, stranger, real));
            const forUnknown = await exchange(taskRequest(room, door, stranger, unknown));
            const shown = (answer: WireAnswer, id: string) => ({
              status: answer.status,
              type: answer.headers['content-type'],
              body: answer.body.split(JSON.stringify(id).slice(1, -1)).join('<id>'),
            });
            expect(shown(forReal, real), `${door} by ${stranger}: another's task, then a made-up id`).toEqual(
              shown(forUnknown, unknown),
            );
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
      const refused = [room.refused.revoked, room.refused.expired, room.refused.removed, room.refused.unknown];
      await fc.assert(
        fc.asyncProperty(refusedTokenRequests(room), async (caseWith) => {
          const answers: WireAnswer[] = [];
          for (const token of refused) answers.push(await exchange(caseWith(token)));
          const shown = answers.map(({ status, headers, body }) => ({
            status,
            type: headers['content-type'],
            authenticate: headers['www-authenticate'],
            body,
          }));
          for (const answer of shown.slice(1)) expect(answer, 'every refused token reads the same').toEqual(shown[0]);
        }),
        settings(tokenRuns),
      );
    },
    timeFor(tokenRuns * 4),
  );

  const limitRuns = Math.max(20, Math.round(RUNS / 50));
  it(
    'limits hold at their edges: 2,000 code points, 256 KiB of result, 1 MiB of body with or without Content-Length',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(limitCases(room), bodyAtTheLimit(room)).map(named), async (c) => {
          await exchange(c);
        }),
        settings(limitRuns),
      );
    },
    timeFor(limitRuns * 2),
  );

  const oversizedRuns = Math.max(20, Math.round(RUNS / 100));
  it(
    'a body far over 1 MiB, with or without Content-Length, is refused with 413 and the connection answers the next request',
    async () => {
      await fc.assert(
        fc.asyncProperty(oversizedCases(room).map(named), async (c) => {
          await exchange(c);
        }),
        settings(oversizedRuns),
      );
    },
    timeFor(oversizedRuns * 2),
  );

  it('the room process logged no failure', () => {
    expect(room.served.stderr()).not.toMatch(/failed/);
  });
});
