import Router from '@koa/router';
import type Koa from 'koa';
import { restRoutes } from '../../../generated/rest.js';
import { DomainError, isDomainError, type Actor, type Room } from '../../engine/index.js';
import { Refusal } from '../refusal.js';
import { restOperations } from './operations.js';

type Route = (typeof restRoutes)[number];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The operation's input, built from own properties only: path parameters, plus the JSON body or the query string. */
function inputOf(ctx: Koa.Context, route: Route): Record<string, unknown> {
  // Nothing a client sends is silently ignored.
  const [stray] = route.in === 'query' ? [] : Object.keys(ctx.query);
  if (stray !== undefined) throw badRequest(`unknown query parameter '${stray}'`);
  const body = bodyOf(ctx);
  if (route.in !== 'body' && body !== null && Object.keys(body).length > 0) {
    throw badRequest(`this route takes no request body (it has ${Object.keys(body).join(', ')})`);
  }
  const fields: [string, unknown][] = [];
  if (route.in === 'body' && body !== null) {
    // The document's body schema leaves path parameters out; one in the body would silently lose to the path.
    const named = route.pathParams.find((name) => Object.hasOwn(body, name));
    if (named) throw badRequest(`the request body has ${named}, which comes from the path`);
    fields.push(...Object.entries(body));
  }
  if (route.in === 'query') {
    const known = new Map<string, Route['queryParams'][number]>(route.queryParams.map((q) => [q.name, q]));
    for (const [name, value] of Object.entries(ctx.query)) {
      const param = known.get(name);
      if (!param) throw badRequest(`unknown query parameter '${name}'`);
      if (Array.isArray(value)) throw badRequest(`query parameter '${name}' is given more than once`);
      // A number when it reads as one; otherwise the text, which the validator names.
      fields.push([param.field, param.type === 'integer' && /^-?\d+$/.test(value!) ? Number(value) : value]);
    }
  }
  for (const name of route.pathParams) fields.push([name, ctx.params[name]]);
  // fromEntries defines each key as an own property: no key reaches a prototype.
  return Object.fromEntries(fields);
}

/** The JSON object the request carries (read and parsed by readJsonBody); null when there is none. */
function bodyOf(ctx: Koa.Context): Record<string, unknown> | null {
  const body = ctx.state.body as unknown;
  if (body === undefined) return null;
  if (!isObject(body)) throw badRequest('the request body must be a JSON object');
  return body;
}

const badRequest = (message: string): Refusal => new Refusal(400, 'invalid_input', message, -32600);

/** A refusal that names an input field the route calls otherwise (?id= for task_id) says it the route's way. */
function inRouteTerms(error: DomainError, route: Route): DomainError {
  const renamed = route.queryParams.filter((param) => param.name !== param.field);
  if (error.code !== 'invalid_input' || renamed.length === 0) return error;
  let message = error.message;
  for (const { name, field } of renamed) message = message.replace(new RegExp(`\\b${field}\\b`, 'g'), name);
  return new DomainError(error.code, message, error.details);
}

/** REST under /workspace: every route is its generated entry plus one engine call. */
export function restRouter(
  room: Room,
  authenticate: (ctx: Koa.Context) => Actor,
  before: readonly Koa.Middleware[],
): Router {
  const router = new Router();
  for (const route of restRoutes) {
    const koaPath = route.path.replace(/\{(\w+)\}/g, ':$1');
    const operation = restOperations[route.operationId] as (room: Room, actor: Actor, input: unknown) => unknown;
    router.register(
      koaPath,
      [route.method],
      [
        ...before,
        (ctx) => {
          try {
            const actor = authenticate(ctx);
            const output = operation(room, actor, inputOf(ctx, route));
            ctx.status = route.status;
            ctx.body = output;
          } catch (error) {
            throw isDomainError(error) ? inRouteTerms(error, route) : error;
          }
        },
      ],
    );
  }
  return router;
}
