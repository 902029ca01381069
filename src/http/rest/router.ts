import Router from '@koa/router';
import type Koa from 'koa';
import { restRoutes } from '../../../generated/rest.js';
import { DomainError, isDomainError, type Actor, type Room } from '../../engine/index.js';
import { restOperations } from './operations.js';
import { sendDomainError, sendProblem } from './problem.js';

type Route = (typeof restRoutes)[number];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The operation's input: path parameters, plus the JSON body or the query string. */
function inputOf(ctx: Koa.Context, route: Route): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  // Nothing a client sends is silently ignored.
  const [stray] = route.in === 'query' ? [] : Object.keys(ctx.query);
  if (stray !== undefined) throw new RequestProblem(`unknown query parameter '${stray}'`);
  const body = bodyOf(ctx);
  if (route.in !== 'body' && Object.keys(body).length > 0) {
    throw new RequestProblem(`this route takes no request body (it has ${Object.keys(body).join(', ')})`);
  }
  if (route.in === 'body') {
    // The document's body schema leaves path parameters out; one in the body would silently lose to the path.
    const named = route.pathParams.find((name) => name in body);
    if (named) throw new RequestProblem(`the request body has ${named}, which comes from the path`);
    Object.assign(input, body);
  }
  if (route.in === 'query') {
    const known = new Map<string, Route['queryParams'][number]>(route.queryParams.map((q) => [q.name, q]));
    for (const [name, value] of Object.entries(ctx.query)) {
      const param = known.get(name);
      if (!param) throw new RequestProblem(`unknown query parameter '${name}'`);
      const text = Array.isArray(value) ? value[0]! : value!;
      // A number when it reads as one; otherwise the text, which the validator names.
      input[param.field] = param.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
    }
  }
  for (const name of route.pathParams) input[name] = ctx.params[name];
  return input;
}

/** The JSON object the request carries; none is an empty one. */
function bodyOf(ctx: Koa.Context): Record<string, unknown> {
  const raw = (ctx.state.rawBody as string | undefined) ?? '';
  if (raw.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new RequestProblem('the request body is not valid JSON');
  }
  if (!isObject(body)) throw new RequestProblem('the request body must be a JSON object');
  return body;
}

class RequestProblem extends Error {}

/** A refusal that names an input field the route calls otherwise (?id= for task_id) says it the route's way. */
function inRouteTerms(error: DomainError, route: Route): DomainError {
  const renamed = route.queryParams.filter((param) => param.name !== param.field);
  if (error.code !== 'invalid_input' || renamed.length === 0) return error;
  let message = error.message;
  for (const { name, field } of renamed) message = message.replace(new RegExp(`\\b${field}\\b`, 'g'), name);
  return new DomainError(error.code, message, error.details);
}

/** REST under /workspace: every route is its generated entry plus one engine call. */
export function restRouter(room: Room, authenticate: (ctx: Koa.Context) => Actor): Router {
  const router = new Router();
  for (const route of restRoutes) {
    const koaPath = route.path.replace(/\{(\w+)\}/g, ':$1');
    const operation = restOperations[route.operationId] as (room: Room, actor: Actor, input: unknown) => unknown;
    router.register(koaPath, [route.method], async (ctx) => {
      try {
        const actor = authenticate(ctx);
        const output = operation(room, actor, inputOf(ctx, route));
        ctx.status = route.status;
        ctx.body = output;
      } catch (error) {
        if (isDomainError(error)) return sendDomainError(ctx, inRouteTerms(error, route));
        if (error instanceof RequestProblem) return sendProblem(ctx, 400, 'invalid_input', error.message);
        throw error;
      }
    });
  }
  return router;
}
