// What a REST request asks of its operation: the input built from the path's
// parameters and the JSON body or the query string, refused when the request
// carries anything the route does not take; and the answer's terms (a
// refusal named as the route names the field, a created resource's Location).
import type { ValidateFunction } from 'ajv';
import type { Operation } from '../../../generated/operations.js';
import * as queryValidators from '../../../generated/query-validators.js';
import { checkInput, DomainError } from '../../engine/index.js';
import { inDoorTerms } from '../../errors.js';
import { Refusal } from '../refusal.js';

type Rest = Operation['rest'];

/** A query string's parameters in the order they first appear; a name given more than once has every value. */
export type Query = Map<string, string | string[]>;

export function queryOf(search: string): Query {
  const query: Query = new Map();
  const params = new URLSearchParams(search);
  for (const name of params.keys()) {
    if (query.has(name)) continue;
    const values = params.getAll(name);
    query.set(name, values.length <= 1 ? values[0]! : values);
  }
  return query;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const badRequest = (message: string): Refusal => new Refusal(400, 'invalid_input', message, -32600);

/** The operation's input, built from own properties only: path parameters, plus the JSON body or the query string. */
export function inputOf(
  operation: Operation,
  request: { query: Query; params: Record<string, string>; body: unknown },
): Record<string, unknown> {
  const route: Rest = operation.rest;
  // Nothing a client sends is silently ignored.
  const [stray] = route.in === 'query' ? [] : request.query.keys();
  if (stray !== undefined) throw badRequest(`unknown query parameter '${stray}'`);
  const body = bodyOf(request.body);
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
    const known = new Map<string, string>(route.queryParams.map((q) => [q.name, q.field]));
    for (const [name, value] of request.query) {
      const field = known.get(name);
      if (field === undefined) throw badRequest(`unknown query parameter '${name}'`);
      if (Array.isArray(value)) throw badRequest(`query parameter '${name}' is given more than once`);
      fields.push([field, value]);
    }
  }
  for (const name of route.pathParams) fields.push([name, request.params[name]]);
  // fromEntries defines each key as an own property: no key reaches a prototype.
  const input = Object.fromEntries(fields);
  // Query text becomes the schema's types (limit=5 → 5) through the schema's own coercing validator.
  if (route.in === 'query') {
    const coerce = (queryValidators as Record<string, ValidateFunction>)[`validateQuery${operation.input}`]!;
    const valid = coerce(input);
    refuseLooseNumbers(fields, input);
    if (!valid) checkInput(coerce, input); // validated once more, to say why
  }
  return input;
}

/** A number as a query writes it: digits, a minus sign before them, a decimal part. */
const DIGITS = /^-?\d+(\.\d+)?$/;

/**
 * A number in the query is written in digits: Ajv's coercion takes what
 * JavaScript's Number() takes, so `limit=0x10` was 16, `limit=1e1` 10 and
 * `limit=%20` (a space) 0. A value coerced to a number from other text is
 * refused, naming the field and the text.
 */
function refuseLooseNumbers(sent: [string, unknown][], input: Record<string, unknown>): void {
  for (const [field, text] of sent) {
    if (typeof input[field] !== 'number' || (typeof text === 'string' && DIGITS.test(text))) continue;
    const message = `must be a number written in digits (got ${JSON.stringify(text)})`;
    throw new DomainError('invalid_input', `${field} ${message}`, {
      errors: [{ path: `/${field}`, keyword: 'type', message }],
    });
  }
}

/** The JSON object the request carries (read and parsed by readJsonBodyOf); null when there is none. */
function bodyOf(body: unknown): Record<string, unknown> | null {
  if (body === undefined) return null;
  if (!isObject(body)) throw badRequest('the request body must be a JSON object');
  return body;
}

/** A refusal that names an input field the route calls otherwise (?id= for task_id) says it the route's way. */
export const inRouteTerms = (error: DomainError, route: Rest): DomainError =>
  inDoorTerms(
    error,
    route.queryParams.filter((param) => param.name !== param.field),
  );

/** `/workspace/handoffs/{handoff.handoff_id}` filled from the output. */
export function locationOf(template: string, output: unknown): string {
  return template.replace(/\{([\w.]+)\}/g, (_whole, path: string) => {
    const value = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], output);
    return encodeURIComponent(String(value));
  });
}
