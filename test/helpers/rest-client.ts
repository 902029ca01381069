import type { ValidateFunction } from 'ajv';
import { request as httpRequest } from 'node:http';
import createClient, { type Client } from 'openapi-fetch';
import { expect } from 'vitest';
import type { components, paths } from '../../generated/openapi-types.js';
import openapi from '../../generated/openapi.json' with { type: 'json' };
import { restRoutes } from '../../generated/operations.js';
import type { Capability } from '../../generated/types.js';
import * as validators from '../../generated/validators.js';
import { createSession, LOCAL_OPERATOR } from './engine.js';
import { readRuntimeFile } from '../../src/http/runtime-file.js';
import { startTestServer, type TestServer } from './server.js';

export type RestClient = Client<paths>;
export type Problem = components['schemas']['ProblemDetails'];
export type OperationId = (typeof restRoutes)[number]['operationId'];
type Route = (typeof restRoutes)[number];

const documentPaths = openapi.paths as Record<string, Record<string, { operationId: string; responses: object }>>;

/** The catalog's route for an operation, with the response schema the document names for its success. */
export function routeOf(operationId: OperationId): Route & { responseSchema: string } {
  const route = restRoutes.find((r) => r.operationId === operationId)!;
  const op = documentPaths[route.path]![route.method.toLowerCase()]!;
  const success = (op.responses as Record<string, { content: Record<string, { schema: { $ref: string } }> }>)[
    String(route.status)
  ]!;
  const responseSchema = success.content['application/json']!.schema.$ref.split('/').pop()!;
  return { ...route, responseSchema };
}

/** The statuses each operation answered with over real HTTP, across every client of the test file. */
export const observed = new Map<OperationId, Set<number>>();

/** Answers observed without the X-Request-Id the document gives every answer: `operationId status`. */
export const withoutRequestId = new Set<string>();

/** The statuses the OpenAPI document lists for an operation. */
export function documentedStatuses(operationId: OperationId): number[] {
  const route = routeOf(operationId);
  return Object.keys(documentPaths[route.path]![route.method.toLowerCase()]!.responses).map(Number);
}

/**
 * A client typed from generated/openapi-types.ts, over real HTTP. Each
 * answer is recorded in `observed` under the operation the document gives
 * its path and method.
 */
export function restClient(baseUrl: string, token: string | null, headers: Record<string, string> = {}): RestClient {
  const client = createClient<paths>({
    baseUrl,
    headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...headers },
  });
  client.use({
    onResponse({ request, response, schemaPath }) {
      const operationId = documentPaths[schemaPath]?.[request.method.toLowerCase()]?.operationId as
        OperationId | undefined;
      if (!operationId) throw new Error(`${request.method} ${schemaPath} is not in the OpenAPI document`);
      let statuses = observed.get(operationId);
      if (!statuses) observed.set(operationId, (statuses = new Set()));
      statuses.add(response.status);
      if (!response.headers.get('x-request-id')) withoutRequestId.add(`${operationId} ${response.status}`);
      return undefined;
    },
  });
  return client;
}

/**
 * A route called with node:http, which sends what fetch will not (a body on
 * a GET, a Host header of one's own); its status is recorded in `observed`
 * as a typed client's is. Path parameters are made up: for refusals that
 * come before the input is read.
 */
export function rawRoute(
  baseUrl: string,
  route: Route,
  sent: { token: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<Answer<unknown>> {
  const path = route.path.replace(/\{[^}]+\}/g, 'made-up');
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, {
      method: route.method,
      // node sends a GET's body with neither length nor chunks unless told its length.
      headers: {
        Authorization: `Bearer ${sent.token}`,
        ...(sent.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(sent.body)) }),
        ...sent.headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let statuses = observed.get(route.operationId);
        if (!statuses) observed.set(route.operationId, (statuses = new Set()));
        statuses.add(res.statusCode!);
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === 'string') headers.set(name, value);
        }
        const response = new Response(text, { status: res.statusCode!, headers });
        resolve(res.statusCode! < 400 ? { data: JSON.parse(text), response } : { error: JSON.parse(text), response });
      });
    });
    req.end(sent.body);
  });
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

function expectValid(validate: ValidateFunction | undefined, value: unknown, what: string): void {
  if (!validate) throw new Error(`no generated validator for ${what}`);
  const valid = validate(value);
  expect(valid ? null : validate.errors, `${what} should match its schema`).toBeNull();
}

/** The catalog's success status, application/json, and a body that matches the response schema the document names. */
export function expectOk<T>(answer: Answer<T>, operationId: OperationId): T {
  const route = routeOf(operationId);
  expect(answer.error, `${operationId} should succeed`).toBeUndefined();
  expect(answer.response.status).toBe(route.status);
  expect(answer.response.headers.get('content-type')).toMatch(/^application\/json\b/);
  const validate = (validators as unknown as Record<string, ValidateFunction>)[`validate${route.responseSchema}`];
  expectValid(validate, answer.data, `${operationId}'s ${route.responseSchema}`);
  return answer.data as T;
}

/**
 * An RFC 9457 problem: the status, application/problem+json, a body that
 * matches ProblemDetails with the same status, the room's code, and a
 * detail saying what was wrong. 401 also carries WWW-Authenticate: Bearer.
 */
export function expectProblem(
  answer: Answer<unknown>,
  status: number,
  code: Problem['code'],
  detail: string | RegExp,
): Problem {
  expect(answer.data, `expected ${status} ${code}`).toBeUndefined();
  expect({ status: answer.response.status, error: answer.error }).toMatchObject({ status });
  expect(answer.response.headers.get('content-type')).toMatch(/^application\/problem\+json\b/);
  expectValid(validators.validateProblemDetails, answer.error, 'the problem');
  const problem = answer.error as Problem;
  expect(problem).toMatchObject({ type: 'about:blank', status, code, title: expect.any(String) });
  if (typeof detail === 'string') expect(problem.detail).toBe(detail);
  else expect(problem.detail).toMatch(detail);
  if (status === 401) expect(answer.response.headers.get('www-authenticate')).toBe('Bearer');
  else expect(answer.response.headers.get('www-authenticate')).toBeNull();
  return problem;
}

/** A served room and a typed client for each way of calling it. */
export interface RestWorld {
  s: TestServer;
  baseUrl: string;
  alice: RestClient;
  bob: RestClient;
  /** read only */
  carol: RestClient;
  /** read and approve */
  dave: RestClient;
  /** dave with admin only */
  admin: RestClient;
  /** dave with approve only: no read */
  noRead: RestClient;
  /** no Authorization header */
  anonymous: RestClient;
  /** the running room's operator token (from its runtime file): the local operator */
  operator: RestClient;
  operatorToken: string;
  /** the operator token naming a participant in Commonroom-Participant */
  operatorAs(participant: string): RestClient;
  stop(): Promise<void>;
}

export async function startRestWorld(): Promise<RestWorld> {
  const s = await startTestServer();
  const baseUrl = s.http.baseUrl;
  const session = (participant: string, capabilities: [Capability, ...Capability[]]) =>
    createSession(s.room, LOCAL_OPERATOR, { participant, capabilities }).token;
  const runtime = readRuntimeFile(s.artifact);
  if (!runtime) throw new Error('the served room wrote no runtime file');
  const operatorToken = runtime.operator_token;
  return {
    s,
    baseUrl,
    alice: restClient(baseUrl, s.tokens.alice),
    bob: restClient(baseUrl, s.tokens.bob),
    carol: restClient(baseUrl, s.tokens.carol),
    dave: restClient(baseUrl, s.tokens.dave),
    admin: restClient(baseUrl, session('dave', ['admin'])),
    noRead: restClient(baseUrl, session('dave', ['approve'])),
    anonymous: restClient(baseUrl, null),
    operator: restClient(baseUrl, operatorToken),
    operatorToken,
    operatorAs: (participant) => restClient(baseUrl, operatorToken, { 'Commonroom-Participant': participant }),
    stop: () => s.stop(),
  };
}
