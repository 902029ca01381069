// Fuzz cases for the REST API and the other paths of the room: a well-formed
// request of every route, then one thing broken (a body value, the query, the
// path id, the content type, the JSON text, the method, the path, the token,
// the origin), each with the problem the reference (docs/reference.md) gives for it.
import type { ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { operations, restRoutes } from '../../generated/operations.js';
import type { Capability } from '../../generated/types.js';
import bundle from '../../generated/schema-bundle.json' with { type: 'json' };
import * as validators from '../../generated/validators.js';
import type { Expectation } from './answer-rules.js';
import {
  anyJson,
  base64Wrap,
  codePoints,
  Deep,
  deepValue,
  escapePrototypeKeys,
  getAt,
  headerText,
  hostileString,
  isJson,
  notAnObject,
  oddIdSegment,
  pathsOf,
  serialize,
  setAt,
  holdsLoneSurrogate,
  truncated,
  withJunk,
  withKeyAt,
  withPrototypeKey,
  wrongTypeFor,
} from './arbitraries.js';
import {
  foreignOrigins,
  JSON_MEDIA_TYPES,
  MIB,
  overLimit,
  NOT_JSON_MEDIA_TYPES,
  withHeader,
  type FuzzCase,
  type FuzzWorld,
  type Headers,
} from './cases.js';
import { SESSION_CAPABILITIES, SPARE_PARTICIPANTS } from './fuzz-room.js';
import type { WireRequest } from './wire.js';

type Route = (typeof restRoutes)[number];
type OperationId = Route['operationId'];

export interface RestCall {
  route: Route;
  pathParams: Record<string, string>;
  query: [string, string][];
  /** The JSON body; none for routes that take none. */
  body?: Record<string, unknown>;
  token: string;
  /** With the operator token: the participant it acts as (Commonroom-Participant). */
  actAs?: string;
  /** What the caller may do: its session's capabilities, or `operator` (the operator token naming no one). */
  may?: readonly Capability[] | 'operator';
}

/** The refusal of who calls, which comes before its input is checked; null when it may act (or is not said). */
function refusalOfWho(call: RestCall): Expectation | null {
  const operation = operations[call.route.operationId];
  if (call.may === undefined) return null;
  if (call.may === 'operator') return operation.actor === 'participant' ? problem(400, 'invalid_input') : null;
  return operation.capability !== null && !call.may.includes(operation.capability) ? problem(403, 'forbidden') : null;
}

/** The engine's validator of each operation's input, named by the operation table. */
const inputValidators = new Map<OperationId, ValidateFunction>(
  Object.values(operations).map((operation) => [
    operation.id,
    (validators as unknown as Record<string, ValidateFunction>)[`validate${operation.input}`]!,
  ]),
);

/** Query parameters whose input field is an integer in the operation's input schema. */
function integerQueryParams(route: Route): string[] {
  const input = (bundle.$defs as Record<string, { properties?: Record<string, { type?: string }> }>)[
    operations[route.operationId].input
  ];
  return route.queryParams.filter((q) => input?.properties?.[q.field]?.type === 'integer').map((q) => q.name);
}

export const routeOf = (operationId: OperationId): Route => restRoutes.find((r) => r.operationId === operationId)!;

/** The request target of a call; path parameters are given already escaped (as odd ids are). */
export function restPath(call: RestCall, escapedParams: Record<string, string> = {}): string {
  const path = call.route.path.replace(
    /\{(\w+)\}/g,
    (_, name: string) => escapedParams[name] ?? encodeURIComponent(call.pathParams[name]!),
  );
  const query = call.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return query ? `${path}?${query}` : path;
}

export function restHeaders(call: RestCall, hasBody: boolean): Headers {
  const headers: Headers = [['authorization', `Bearer ${call.token}`]];
  if (call.actAs !== undefined) headers.push(['commonroom-participant', call.actAs]);
  if (hasBody) headers.push(['content-type', 'application/json']);
  return headers;
}

export function restRequest(call: RestCall, overrides: Partial<WireRequest> & { text?: string } = {}): WireRequest {
  const text = overrides.text ?? (call.body === undefined ? undefined : serialize(call.body));
  const { text: _text, ...rest } = overrides;
  return {
    method: call.route.method,
    path: restPath(call),
    headers: restHeaders(call, text !== undefined),
    ...(text === undefined ? {} : { body: Buffer.from(text, 'utf8') }),
    ...rest,
  };
}

const problem = (status: number, code: string, detail?: RegExp): Expectation =>
  detail ? { is: 'problem', status, code, detail } : { is: 'problem', status, code };

// ---------------------------------------------------------------------------
// Well-formed calls

/** A request of every route, well-formed, by a session that may or may not hold the capability it needs. */
export function restCalls(world: FuzzWorld): fc.Arbitrary<RestCall> {
  const { ids, tokens } = world;
  const handoff = fc.constantFrom(ids.openHandoff, ids.acceptedHandoff, ids.unassignedHandoff);
  const task = fc.constantFrom(ids.openTask, ids.acceptedTask, ids.unassignedTask);
  const actingAs: Capability[] = ['read', 'write', 'approve'];
  const as = (who: keyof typeof tokens) => ({ token: tokens[who], may: SESSION_CAPABILITIES[who] });
  const participant = fc.constantFrom<Pick<RestCall, 'token' | 'actAs' | 'may'>>(
    as('alice'),
    as('alice'),
    as('bob'),
    as('carol'),
    as('dave'),
    as('approveOnly'),
    { token: world.operatorToken, actAs: 'alice', may: actingAs },
    { token: world.operatorToken, actAs: 'bob', may: actingAs },
  );
  const administrator = fc.constantFrom<Pick<RestCall, 'token' | 'actAs' | 'may'>>(
    as('admin'),
    { token: world.operatorToken, may: 'operator' },
    as('alice'),
  );
  const spare = fc.constantFrom(...SPARE_PARTICIPANTS);
  const note = fc.option(fc.constant({ note: 'Fine' }), { nil: {} });
  const query = (pairs: fc.Arbitrary<[string, string] | null>[]) =>
    fc.tuple(...pairs).map((all) => all.filter((p): p is [string, string] => p !== null));
  const opt = (name: string, value: fc.Arbitrary<string>) =>
    fc.option(
      value.map((v): [string, string] => [name, v]),
      { nil: null },
    );
  const call = (
    operationId: OperationId,
    who: fc.Arbitrary<Pick<RestCall, 'token' | 'actAs' | 'may'>>,
    parts: fc.Arbitrary<Partial<Pick<RestCall, 'pathParams' | 'query' | 'body'>>>,
  ) =>
    fc.tuple(who, parts).map(([w, p]): RestCall => ({
      route: routeOf(operationId),
      pathParams: {},
      query: [],
      ...p,
      ...w,
    }));
  return fc.oneof(
    call(
      'createHandoff',
      participant,
      fc.constantFrom(
        { body: { summary: 'Check the numbers' } },
        { body: { summary: 'Check', assignee: 'bob', idempotency_key: 'rest-1' } },
      ),
    ),
    call(
      'listHandoffs',
      participant,
      query([
        opt('status', fc.constantFrom('open', 'accepted', 'cancelled')),
        opt('limit', fc.constantFrom('1', '20', '500')),
      ]).map((q) => ({ query: q })),
    ),
    call(
      'getHandoff',
      participant,
      handoff.map((handoff_id) => ({ pathParams: { handoff_id } })),
    ),
    call(
      'acceptHandoff',
      participant,
      handoff.map((handoff_id) => ({ pathParams: { handoff_id } })),
    ),
    call(
      'requestHandoffInput',
      participant,
      handoff.map((handoff_id) => ({ pathParams: { handoff_id }, body: { message: 'Which tone?', key: 'tone' } })),
    ),
    call(
      'completeHandoff',
      participant,
      fc
        .tuple(
          handoff,
          fc.constantFrom<Record<string, unknown>>(
            { result: { content: [{ type: 'text', text: 'Done' }] } },
            { error: { code: -32000, message: 'Could not' } },
          ),
        )
        .map(([handoff_id, body]) => ({ pathParams: { handoff_id }, body })),
    ),
    call(
      'approveHandoff',
      participant,
      fc.tuple(handoff, note).map(([handoff_id, body]) => ({ pathParams: { handoff_id }, body })),
    ),
    call(
      'rejectHandoff',
      participant,
      fc.tuple(handoff, note).map(([handoff_id, body]) => ({ pathParams: { handoff_id }, body })),
    ),
    call(
      'listHandoffEvents',
      participant,
      fc
        .tuple(handoff, query([opt('after', fc.constantFrom('0', '2')), opt('limit', fc.constantFrom('1', '100'))]))
        .map(([handoff_id, q]) => ({ pathParams: { handoff_id }, query: q })),
    ),
    call(
      'getTask',
      participant,
      task.map((id) => ({ query: [['id', id]] as [string, string][] })),
    ),
    call(
      'answerTaskInput',
      participant,
      task.map((task_id) => ({ body: { task_id, input_responses: { tone: { action: 'decline' } } } })),
    ),
    call(
      'cancelTask',
      participant,
      task.map((task_id) => ({ body: { task_id } })),
    ),
    call(
      'proposeChange',
      participant,
      fc.constant({ body: { base_revision: 1, content: '# Fuzz room\n\nRest line.\n', summary: 'A change' } }),
    ),
    call(
      'listProposals',
      participant,
      query([opt('status', fc.constantFrom('open', 'accepted', 'withdrawn')), opt('limit', fc.constant('5'))]).map(
        (q) => ({ query: q }),
      ),
    ),
    call('getProposal', participant, fc.constant({ pathParams: { proposal_id: ids.proposal } })),
    call(
      'approveProposal',
      participant,
      note.map((body) => ({ pathParams: { proposal_id: ids.proposal }, body })),
    ),
    call(
      'rejectProposal',
      participant,
      note.map((body) => ({ pathParams: { proposal_id: ids.proposal }, body })),
    ),
    call(
      'withdrawProposal',
      participant,
      note.map((body) => ({ pathParams: { proposal_id: ids.proposal }, body })),
    ),
    call('readArtifact', participant, fc.constant({})),
    call(
      'listHistory',
      participant,
      query([opt('after', fc.constantFrom('0', '1')), opt('limit', fc.constantFrom('1', '50'))]).map((q) => ({
        query: q,
      })),
    ),
    call('listParticipants', participant, fc.constant({})),
    call(
      'addParticipant',
      administrator,
      fc.oneof(spare, fc.stringMatching(/^new-[a-z0-9]{1,8}$/)).map((name) => ({ body: { name } })),
    ),
    call(
      'removeParticipant',
      administrator,
      spare.map((name) => ({ pathParams: { name } })),
    ),
    call(
      'listSessions',
      administrator,
      query([opt('participant', spare)]).map((q) => ({ query: q })),
    ),
    call(
      'createSession',
      administrator,
      spare.map((participant) => ({ body: { participant, capabilities: ['read'] } })),
    ),
    call(
      'revokeSession',
      administrator,
      fc.constantFrom(ids.revokedSession, 'se_unknown').map((session_id) => ({ pathParams: { session_id } })),
    ),
  );
}

/** The input the engine sees: path parameters, plus the body or the query. */
function inputOf(call: RestCall, body: unknown): unknown {
  return { ...(body as object), ...call.pathParams };
}

/** What a body changed at a path must get: the engine's validator decides whether it is valid. */
function expectForBody(call: RestCall, body: unknown): Expectation {
  if (holdsLoneSurrogate(body)) return problem(400, 'invalid_input');
  const validate = inputValidators.get(call.route.operationId)!;
  if (!validate(inputOf(call, body))) {
    const who = refusalOfWho(call);
    if (who !== null) return who;
  }
  if (validate(inputOf(call, body))) return { is: 'any' };
  const tooLarge = validate.errors?.some((e) => e.keyword === 'x-max-bytes');
  return tooLarge
    ? {
        is: 'problem-of',
        pairs: [
          [413, 'too_large'],
          [400, 'invalid_input'],
        ],
      }
    : problem(400, 'invalid_input');
}

// ---------------------------------------------------------------------------
// One thing broken

type Build = (call: RestCall, world: FuzzWorld) => fc.Arbitrary<FuzzCase> | null;

const caseOf = (kind: string, request: WireRequest, expect: Expectation, followUp = false): FuzzCase => ({
  kind,
  request,
  expect,
  ...(followUp ? { followUp } : {}),
});

const unchanged: Build = (call) => fc.constant(caseOf('rest well-formed', restRequest(call), { is: 'any' }));

/** One value of the body replaced: wrong type, odd Unicode, over a limit, deeply nested. */
const changedBody: Build = (call) => {
  if (call.body === undefined || Object.keys(call.body).length === 0) return null;
  const body = call.body;
  return fc
    .constantFrom(...pathsOf(body))
    .chain((path) => {
      const original = getAt(body, path);
      return fc.oneof(
        { weight: 5, arbitrary: wrongTypeFor(original).map((value) => ({ path, value, deep: false })) },
        {
          weight: typeof original === 'string' ? 3 : 0,
          arbitrary: hostileString.map((value) => ({ path, value, deep: false })),
        },
        { weight: 1, arbitrary: deepValue.map((value) => ({ path, value, deep: true })) },
      );
    })
    .map(({ path, value, deep }) => {
      const changed = setAt(body, path, value);
      return caseOf(
        `rest ${call.route.operationId} body: ${deep ? 'deeply nested' : 'changed'}`,
        restRequest(call, { text: serialize(changed) }),
        deep ? problem(400, 'invalid_input') : expectForBody(call, changed),
      );
    });
};

/** A member the route does not take, in the body: refused, never ignored. */
const extraMember: Build = (call) => {
  if (call.route.method !== 'POST') return null;
  return fc
    .tuple(
      fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k)),
      anyJson,
    )
    .map(([key, value]) => {
      const body = withKeyAt(call.body ?? {}, [], key, value);
      const valid =
        call.route.in === 'body' &&
        !call.route.pathParams.includes(key as never) &&
        inputValidators.get(call.route.operationId)!(inputOf(call, body));
      return caseOf(
        `rest ${call.route.operationId}: a body member it does not take`,
        restRequest(call, { text: serialize(body) }),
        valid
          ? { is: 'any' }
          : // A body on a route that takes none is the door's to refuse, before who calls is asked.
            ((call.route.in === 'body' ? refusalOfWho(call) : null) ?? problem(400, 'invalid_input')),
      );
    });
};

/** The query: a parameter the route does not take, a number that is not one, a value twice. */
const changedQuery: Build = (call) => {
  const integers = integerQueryParams(call.route);
  // Text no reading makes an integer in range (the room reads '1e3' and '0x10' as numbers, as Ajv coerces).
  const badNumber = fc.constantFrom('abc', '1.5', '-1', '', '９', '%00', 'NaN', 'Infinity', 'true', '[]', '1,2');
  const edits: fc.Arbitrary<FuzzCase>[] = [
    fc
      .tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }))
      .filter(([name]) => !call.route.queryParams.some((q) => q.name === name))
      .map(([name, value]) =>
        caseOf(
          `rest ${call.route.operationId} query: a parameter it does not take`,
          restRequest({ ...call, query: [...call.query, [name, value]] }),
          problem(400, 'invalid_input', /query parameter/),
        ),
      ),
  ];
  if (integers.length > 0) {
    edits.push(
      fc
        .tuple(fc.constantFrom(...integers), badNumber)
        .map(([name, value]) =>
          caseOf(
            `rest ${call.route.operationId} query: not an integer`,
            restRequest({ ...call, query: [...call.query.filter(([n]) => n !== name), [name, value]] }),
            problem(400, 'invalid_input'),
          ),
        ),
    );
  }
  if (call.route.queryParams.length > 0) {
    edits.push(
      fc
        .tuple(
          fc.constantFrom(...call.route.queryParams.map((q) => q.name)),
          fc.string({ maxLength: 6 }),
          fc.string({ maxLength: 6 }),
        )
        .map(([name, a, b]) =>
          caseOf(
            `rest ${call.route.operationId} query: a parameter twice`,
            restRequest({ ...call, query: [...call.query, [name, a], [name, b]] }),
            problem(400, 'invalid_input', /more than once/),
          ),
        ),
    );
  }
  return fc.oneof(...edits);
};

/** An id in the path that looks like a path, an escape, or is far too long. */
const oddPathId: Build = (call) => {
  if (call.route.pathParams.length === 0) return null;
  const real = new Set(['alice', 'bob', 'carol', 'dave', 'erin']);
  return fc
    .tuple(fc.constantFrom(...call.route.pathParams), oddIdSegment)
    .filter(([, segment]) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // stays as sent
      }
      return !real.has(decoded) && segment !== '';
    })
    .map(([name, segment]) =>
      caseOf(
        `rest ${call.route.operationId}: an odd id in the path`,
        { ...restRequest(call), path: restPath(call, { [name]: segment }) },
        {
          is: 'problem-of',
          pairs: [
            [400, 'invalid_input'],
            [404, 'not_found'],
            // A session without the capability is refused before the id is looked at.
            [403, 'forbidden'],
          ],
        },
      ),
    );
};

/** A body that is not JSON by its content type (or has none): 415; one that is JSON by it: not 415. */
const contentType: Build = (call) => {
  if (call.route.method !== 'POST') return null;
  const text = serialize(call.body ?? {});
  const headers = restHeaders(call, true);
  return fc.oneof(
    fc.constant(
      caseOf(
        `rest ${call.route.operationId}: a body without Content-Type`,
        { ...restRequest(call, { text }), headers: withHeader(headers, 'content-type') },
        problem(415, 'unsupported_media_type', /application\/json/),
      ),
    ),
    fc
      .constantFrom(...NOT_JSON_MEDIA_TYPES)
      .map((type) =>
        caseOf(
          `rest ${call.route.operationId}: a body of another media type`,
          { ...restRequest(call, { text }), headers: withHeader(headers, 'content-type', type) },
          problem(415, 'unsupported_media_type', /application\/json/),
        ),
      ),
    fc
      .constantFrom(...JSON_MEDIA_TYPES)
      .map((type) =>
        caseOf(
          `rest ${call.route.operationId}: a JSON media type`,
          { ...restRequest(call, { text }), headers: withHeader(headers, 'content-type', type) },
          { is: 'any', notStatus: [415] },
        ),
      ),
    fc
      .constantFrom('application/json', 'text/plain')
      .map((type) =>
        caseOf(
          `rest ${call.route.operationId}: Content-Type twice`,
          { ...restRequest(call, { text }), headers: withHeader(headers, 'content-type', 'application/json', type) },
          { is: 'any' },
        ),
      ),
  );
};

/** JSON text broken, not an object, or with a prototype key: 400 invalid_input. */
const brokenText: Build = (call) => {
  if (call.route.method !== 'POST') return null;
  const value = call.body ?? {};
  const text = serialize(value);
  const sent = (t: string) => restRequest(call, { text: t });
  return fc.oneof(
    truncated(text, 1).map((t) =>
      caseOf(`rest ${call.route.operationId}: truncated JSON`, sent(t), problem(400, 'invalid_input', /JSON/)),
    ),
    withJunk(text).map((t) =>
      caseOf(
        `rest ${call.route.operationId}: junk in the JSON`,
        sent(t),
        isJson(t) ? { is: 'any' } : problem(400, 'invalid_input', /JSON/),
      ),
    ),
    notAnObject(value)
      .filter((t) => t.trim() !== '')
      .map((t) => caseOf(`rest ${call.route.operationId}: not a JSON object`, sent(t), problem(400, 'invalid_input'))),
    withPrototypeKey(value).map(({ value: v, key, escaped }) =>
      caseOf(
        `rest ${call.route.operationId}: a prototype key${escaped ? ' (escaped)' : ''}`,
        sent(escaped ? escapePrototypeKeys(serialize(v)) : serialize(v)),
        problem(400, 'invalid_input', new RegExp(key === '__proto__' ? '__proto__' : 'constructor|prototype')),
      ),
    ),
  );
};

/** A body over 1 MiB, with or without Content-Length: 413, and the connection still answers. */
const oversized: Build = (call) => {
  if (call.route.method !== 'POST') return null;
  return fc.tuple(overLimit, fc.boolean(), fc.boolean()).map(([over, chunked, json]) => {
    const text = serialize(call.body ?? {});
    const body = json ? `${text.slice(0, -1)}${' '.repeat(MIB + over - text.length)}}` : 'x'.repeat(MIB + over);
    return caseOf(
      `rest: a body over 1 MiB${chunked ? ', chunked' : ''}`,
      { ...restRequest(call, { text: body }), chunked },
      problem(413, 'too_large'),
      true,
    );
  });
};

/** No token, a token that opens no session, or another scheme: 401. */
const badToken: Build = (call, world) =>
  fc
    .oneof(
      fc
        .constantFrom(world.refused.revoked, world.refused.expired, world.refused.removed, world.refused.unknown)
        .map((t) => `Bearer ${t}`),
      fc.constantFrom(
        `Basic ${Buffer.from('alice:x').toString('base64')}`,
        base64Wrap(`Bearer ${call.token}`),
        'Bearer',
        `Bearer ${call.token} x`,
        call.token,
        '',
      ),
      headerText.filter((v) => !v.includes(call.token)),
    )
    .map((value) => {
      const request = restRequest(call);
      const headers =
        value === ''
          ? withHeader(request.headers, 'authorization')
          : withHeader(request.headers, 'authorization', value);
      return caseOf('rest: no valid session', { ...request, headers }, problem(401, 'unauthorized'));
    });

/** A foreign Origin: 403 before anything else; the room's own: as without. */
const origin: Build = (call, world) =>
  fc.oneof(
    fc.constantFrom(...foreignOrigins(world)).map((o) => {
      const request = restRequest(call);
      return caseOf(
        'rest: a foreign Origin',
        { ...request, headers: withHeader(request.headers, 'origin', o) },
        problem(403, 'forbidden', /origin/i),
      );
    }),
    fc.constant(
      caseOf(
        "rest: the room's own Origin",
        { ...restRequest(call), headers: withHeader(restRequest(call).headers, 'origin', world.ownOrigin) },
        { is: 'any', notDetail: /origin/i },
      ),
    ),
    fc.constantFrom(world.ownOrigin, 'http://evil.example').map((o) => {
      const request = restRequest(call);
      return caseOf(
        'rest: Origin twice',
        { ...request, headers: withHeader(request.headers, 'origin', world.ownOrigin, o) },
        { is: 'any' },
      );
    }),
  );

/** The operator token naming no participant, an unknown one, or one in Base64. */
const operatorAs: Build = (call, world) =>
  fc.oneof(fc.constantFrom('', 'nobody', 'erin', 'ALICE', base64Wrap('alice'), 'alice, bob'), headerText).map((who) => {
    const acting = { ...call, token: world.operatorToken, actAs: who === '' ? undefined : who };
    return caseOf('rest: the operator token acting as someone odd', restRequest(acting), { is: 'any' });
  });

/** Every method the path does not take: 405 with Allow. */
const wrongMethod: Build = (call) => {
  const allowed = new Set(restRoutes.filter((r) => r.path === call.route.path).map((r) => r.method as string));
  if (allowed.has('GET')) allowed.add('HEAD');
  const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'TRACE'].filter((m) => !allowed.has(m));
  return fc
    .constantFrom(...others)
    .map((method) =>
      caseOf(
        `rest: ${method} on a path that does not take it`,
        { ...restRequest(call), method, ...(method === 'HEAD' || method === 'GET' ? { body: undefined } : {}) },
        problem(405, 'method_not_allowed'),
      ),
    );
};

const builds: { weight: number; build: Build }[] = [
  { weight: 3, build: unchanged },
  { weight: 8, build: changedBody },
  { weight: 2, build: extraMember },
  { weight: 3, build: changedQuery },
  { weight: 4, build: oddPathId },
  { weight: 4, build: contentType },
  { weight: 5, build: brokenText },
  { weight: 3, build: badToken },
  { weight: 2, build: origin },
  { weight: 1, build: operatorAs },
  { weight: 3, build: wrongMethod },
];

/** A fuzz case on the REST API: a well-formed call with one thing broken. */
export function restCases(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  return restCalls(world).chain((call) =>
    fc.oneof(
      ...builds.flatMap(({ weight, build }) => {
        const arbitrary = build(call, world);
        return arbitrary ? [{ weight, arbitrary }] : [];
      }),
    ),
  );
}

/**
 * Paths that are no route, under any method: 404. The documents the room
 * serves and the room's page, with other methods: 405.
 */
export function otherPathCases(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'HEAD', 'OPTIONS');
  const unknownPath = fc.oneof(
    fc.constantFrom(
      '/workspace',
      '/workspace/',
      '/workspace/handoff',
      '/workspace/tasks',
      '/workspace/handoffs/x/y/z',
      '/workspace/handoffs/x/accept/again',
      '/workspace/proposals/x/merge',
      '/favicon.ico',
      '/.env',
      '/workspace/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/workspace/artifact/x',
      '/openapi.yaml',
      '/docs/x',
      '/page',
      '/page/',
      '/page/../package.json',
      '//workspace/handoffs',
      '/workspace//handoffs',
    ),
    fc
      .stringMatching(/^\/[a-z0-9._~-]{1,12}(\/[a-z0-9._~%-]{1,12}){0,3}$/)
      .filter((p) => !/^\/(mcp|docs|openapi\.json|workspace|page)(\/|$)/i.test(p)),
  );
  const token = fc.constantFrom(world.tokens.alice, world.refused.revoked, '');
  return fc.oneof(
    fc
      .tuple(method, unknownPath, token)
      .map(([m, path, t]) =>
        caseOf(
          'a path that is no route',
          { method: m, path, headers: t ? [['authorization', `Bearer ${t}`]] : [] },
          problem(404, 'not_found'),
        ),
      ),
    // A file of the page's folder that is not the page's, or none at all.
    fc
      .constantFrom('/page/index.html', '/page/room.js.map', '/page/room.js.LEGAL.txt', '/page/x')
      .map((path) => caseOf('not a file of the page', { method: 'GET', path, headers: [] }, problem(404, 'not_found'))),
    fc
      .tuple(
        fc.constantFrom('/openapi.json', '/docs', '/', '/page/room.js', '/page/room.css', '/page/icon.svg'),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD'),
      )
      .map(([path, m]) =>
        caseOf(
          `${m} ${path}`,
          { method: m, path, headers: [] },
          m === 'GET' || m === 'HEAD' ? { is: 'ok' } : problem(405, 'method_not_allowed'),
        ),
      ),
    fc
      .tuple(
        fc.constantFrom<[OperationId, (deep: Deep) => Record<string, unknown>]>(
          ['completeHandoff', (deep) => ({ result: { content: [], structuredContent: { a: deep } } })],
          ['completeHandoff', (deep) => ({ error: { code: 1, message: 'm', data: deep } })],
          [
            'answerTaskInput',
            (deep) => ({
              task_id: world.ids.acceptedTask,
              input_responses: { tone: { action: 'decline', _meta: { a: deep } } },
            }),
          ],
        ),
        deepValue,
      )
      .map(([[operationId, body], deep]) => {
        const route = routeOf(operationId);
        const token = operationId === 'completeHandoff' ? world.tokens.bob : world.tokens.alice;
        const pathParams: Record<string, string> =
          route.pathParams.length > 0 ? { handoff_id: world.ids.acceptedHandoff } : {};
        return caseOf(
          `rest limit: ${deep.depth} levels deep where any JSON goes`,
          restRequest({ route, pathParams, query: [], body: body(deep), token }),
          { is: 'any' },
        );
      }),
    fc.constant(
      caseOf(
        'a summary over 2,000 code points by REST',
        restRequest({
          route: routeOf('createHandoff'),
          pathParams: {},
          query: [],
          body: { summary: 'x'.repeat(2_001) },
          token: world.tokens.alice,
        }),
        problem(400, 'invalid_input', /summary/),
      ),
    ),
    codePoints(2_001).map((summary) =>
      caseOf(
        'a summary of 2,001 odd code points by REST',
        restRequest({
          route: routeOf('createHandoff'),
          pathParams: {},
          query: [],
          body: { summary },
          token: world.tokens.alice,
        }),
        problem(400, 'invalid_input', /summary/),
      ),
    ),
  );
}

/** A well-formed POST in a body over 1 MiB (the limits property sends these). */
export function oversizedRestCases(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  return restCalls(world)
    .filter((call) => call.route.method === 'POST')
    .chain((call) => oversized(call, world)!);
}
