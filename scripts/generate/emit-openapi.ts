// generated/openapi.json: OpenAPI 3.1 of the REST API, from the operation
// table and the schemas. Each operation's input fills its path parameters
// and its body or query string; its errors are those of its method.
import type { Json } from './schema-tools.js';
import { withoutProperties } from './schema-tools.js';
import type { Operation } from './table.js';

/** What each of the room's error codes means on a route. */
const MEANING: Record<string, string> = {
  invalid_input: 'The input does not match its schema',
  unauthorized: 'No valid session',
  forbidden:
    'The session lacks the capability, the caller is the wrong participant, or the Host or Origin header is not one the room answers',
  not_found: 'No such record, or one the caller may not see',
  conflict:
    'The record is in the wrong state, the base revision is stale, or the file is not UTF-8 text since an outside edit',
  locked: 'Another process writes the sidecar',
  too_large: 'The body or a value in it is too large',
  limit_reached: 'The room already has 32 active tasks, or the caller 32 open proposals',
  unavailable: 'The disk or the directory refused the change (an I/O error, the sidecar busy); it is not acknowledged',
  disk_full: 'The disk is full; nothing was changed, and reads go on',
};

/** What X-Request-Id is, sent and answered (src/http/middleware/request-id.ts). */
const REQUEST_ID =
  "The request's id, in every answer and in the room's log line for it: the caller's own X-Request-Id when it is 1 to 128 visible ASCII characters, else a fresh one.";

/**
 * The error codes a route can answer with: its operation's own (the
 * table's errors), those of every route (invalid_input; unauthorized;
 * forbidden, for a Host or Origin the room does not answer; too_large, as
 * every route reads the body it is sent, to refuse one it does not take),
 * and those of a change (the disk's refusals).
 */
function errorCodesOf(op: Operation): string[] {
  return [
    'invalid_input',
    'unauthorized',
    'forbidden',
    'too_large',
    ...op.errors,
    ...(op.changes ? ['unavailable', 'disk_full'] : []),
  ];
}

/**
 * An object schema that says nothing of its properties (`_meta`, an
 * event's payload, a problem's details): any properties, as JSON Schema has
 * it. Said outright in the document, as `additionalProperties: true`, since
 * openapi-typescript types such an object as `Record<string, never>`, which
 * nothing can be read from or put in; other generators give a record of
 * unknown either way.
 */
function isOpenObject(schema: Json): boolean {
  const type = schema.type;
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object'));
  const said = ['properties', 'additionalProperties', 'patternProperties', '$ref', 'oneOf', 'anyOf', 'allOf'];
  return isObject && !said.some((key) => key in schema);
}

/**
 * A choice of forms said only by which property each requires (`oneOf:
 * [{required: [result]}, {required: [error]}]`, the properties beside it),
 * each form given the schema of the properties it requires. JSON Schema
 * reads the two the same; generators read the bare one as nothing
 * (openapi-typescript's `unknown | unknown`), so a client could send neither.
 */
function formsWithTheirProperties(schema: Json): Json {
  const properties = schema.properties as Record<string, Json> | undefined;
  const forms = schema.oneOf;
  const bare = (form: unknown): form is { required: string[] } =>
    typeof form === 'object' &&
    form !== null &&
    Object.keys(form).join() === 'required' &&
    ((form as Json).required as string[]).every((name) => properties?.[name] !== undefined);
  if (!properties || !Array.isArray(forms) || !forms.every(bare)) return schema;
  return {
    ...schema,
    oneOf: forms.map((form) => ({
      type: 'object',
      required: form.required,
      properties: Object.fromEntries(form.required.map((name) => [name, properties[name]!])),
    })),
  };
}

/** A body is required when its schema requires a property, or one of several forms; else it may be left out. */
function bodyRequired(input: Json, pathParams: string[]): boolean {
  const required = (input.required ?? []) as string[];
  return required.some((field) => !pathParams.includes(field)) || Array.isArray(input.oneOf);
}

export function emitOpenApi(bundle: Json, operations: Operation[]): Json {
  const defs = bundle.$defs as Record<string, Json>;
  const statuses = defs.DomainError!['x-http-status'] as Record<string, number>;
  const components: Record<string, Json> = {};
  const paths: Record<string, Record<string, Json>> = {};
  // A schema put in the document has its $defs references turned into
  // component references, and each component it reaches is added once. A
  // titled schema nested in another's $defs (DomainError's code) becomes a
  // component of its own, so no component is kept only for its $defs.
  const componentRef = (ref: string): string => {
    const [name, ...rest] = ref.slice('#/$defs/'.length).split('/') as [string, ...string[]];
    const nested =
      rest.length === 2 && rest[0] === '$defs' ? (defs[name]?.$defs as Json | undefined)?.[rest[1]!] : null;
    if (nested && typeof (nested as Json).title === 'string') {
      const title = (nested as Json).title as string;
      if (defs[title]) throw new Error(`$defs/${name}/$defs/${rest[1]} is titled ${title}, like a schema file`);
      addComponent(title, nested as Json);
      return `#/components/schemas/${title}`;
    }
    if (!defs[name]) throw new Error(`no schema titled ${name} (${ref})`);
    addComponent(name, defs[name]);
    return ['#/components/schemas', name, ...rest].join('/');
  };
  const toComponents = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(toComponents);
    if (node === null || typeof node !== 'object') return node;
    const mapped = Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')
          ? componentRef(value)
          : toComponents(value),
      ]),
    );
    return isOpenObject(mapped) ? { ...mapped, additionalProperties: true } : formsWithTheirProperties(mapped);
  };
  function addComponent(name: string, schema: Json): void {
    if (name in components) return;
    components[name] = {}; // taken, for schemas that refer to themselves
    components[name] = toComponents(schema) as Json;
  }
  const use = (title: string): Json => ({ $ref: componentRef(`#/$defs/${title}`) });
  use('ProblemDetails');
  for (const op of operations) {
    const route = op.rest;
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const input = defs[op.input]!;
    const inputProps = (input.properties ?? {}) as Record<string, Json>;
    const branchProps = ((input.oneOf ?? []) as Json[]).map((b) => (b.properties ?? {}) as Record<string, Json>);
    const propertyOf = (name: string): Json =>
      (inputProps[name] ?? branchProps.find((p) => p[name])?.[name] ?? { type: 'string' }) as Json;
    const parameters: Json[] = [{ $ref: '#/components/parameters/RequestId' }];
    parameters.push(
      ...pathParams.map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: toComponents(propertyOf(name)),
      })),
    );
    if (route.in === 'query') {
      const renamed = Object.fromEntries(Object.entries(route.query_names ?? {}).map(([q, f]) => [f, q]));
      const required = (input.required ?? []) as string[];
      for (const [field, schema] of Object.entries(inputProps)) {
        if (pathParams.includes(field)) continue;
        parameters.push({
          name: renamed[field] ?? field,
          in: 'query',
          required: required.includes(field),
          schema: toComponents(schema),
        });
      }
    }
    let requestBody: Json | undefined;
    if (route.in === 'body') {
      const bodyTitle = pathParams.length > 0 ? `${op.input}Body` : op.input;
      if (pathParams.length > 0) {
        // Only the body form is in the document: the input's own schema names the path parameters too.
        components[bodyTitle] = toComponents({
          ...withoutProperties(input, pathParams),
          title: bodyTitle,
          description: `${String(input.description ?? '')} The ${pathParams.join(', ')} come${pathParams.length > 1 ? '' : 's'} from the path.`,
        }) as Json;
      } else use(bodyTitle);
      requestBody = {
        required: bodyRequired(input, pathParams),
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${bodyTitle}` } } },
      };
    }
    const requestId = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
    const problem = {
      headers: requestId,
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
    };
    const responses: Record<string, Json> = {
      [String(route.status)]: {
        description: op.summary,
        headers: route.location
          ? { ...requestId, Location: { description: 'Where the new record is', schema: { type: 'string' } } }
          : requestId,
        content: { 'application/json': { schema: use(op.output) } },
      },
    };
    const byStatus = new Map<number, string[]>();
    for (const code of new Set(errorCodesOf(op))) {
      const status = statuses[code];
      if (status === undefined) throw new Error(`operation ${op.id}: no HTTP status for the error ${code}`);
      byStatus.set(status, [...(byStatus.get(status) ?? []), MEANING[code]!]);
    }
    // Every route reads a body it is sent, to refuse one it does not take.
    byStatus.set(415, [
      route.in === 'body'
        ? 'The body is not sent as application/json'
        : 'A body is sent, and not as application/json (this route takes none)',
    ]);
    for (const [status, meanings] of [...byStatus].sort(([a], [b]) => a - b)) {
      responses[String(status)] = { description: meanings.join('; or: '), ...problem };
    }
    (paths[route.path] ??= {})[route.method] = {
      operationId: op.id,
      summary: op.summary,
      description: String(input.description ?? ''),
      tags: [route.tag],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Common Room REST API',
      version: '0.1.0',
      description:
        'The room around one markdown file: handoffs, tasks, proposals, history, participants and sessions. The same engine operations as the MCP tools and `ce`. Generated from schemas/ by `npm run generate`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'the room process' }],
    security: [{ session: [] }],
    tags: [
      { name: 'handoffs', description: 'Work one participant asks another to do' },
      { name: 'tasks', description: 'The execution record of a handoff (MCP Tasks)' },
      { name: 'proposals', description: 'Suggested new versions of the artifact' },
      { name: 'artifact', description: 'The markdown file and its history' },
      { name: 'admin', description: 'Participants and sessions' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      parameters: {
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: `${REQUEST_ID} One the room cannot use (longer, or other characters) is replaced by a fresh one, not refused.`,
          schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' },
        },
      },
      headers: {
        RequestId: { description: REQUEST_ID, schema: { type: 'string' } },
      },
      securitySchemes: {
        session: { type: 'http', scheme: 'bearer', description: 'A session token (ce session create)' },
      },
    },
  };
}
