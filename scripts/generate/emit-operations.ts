// generated/operations.ts: the operation table as the doors read it, with
// what each door needs worked out from the schemas once: REST path and query
// parameters, the type and help of each ce argument and flag.
import prettier from 'prettier';
import { HEADER, resolveRef, type Json } from './schema-tools.js';
import { checkedType } from './emit-validators.js';
import type { Operation } from './table.js';

/** A property of an input schema, also inside oneOf branches, references followed. */
function propertyOf(defs: Record<string, Json>, input: Json, name: string): Json {
  const branches = [input, ...((input.oneOf ?? []) as Json[])];
  const found = branches.map((b) => (b.properties as Record<string, Json> | undefined)?.[name]).find(Boolean);
  if (!found) throw new Error(`no property ${name}`);
  return typeof found.$ref === 'string' ? { ...resolveRef(defs, found.$ref), ...found } : found;
}

/** The values a field (or each item of an array field) may take, when its schema lists them. */
function choicesOf(defs: Record<string, Json>, property: Json): string[] | undefined {
  const items = property.items as Json | undefined;
  const listed = items ? (typeof items.$ref === 'string' ? resolveRef(defs, items.$ref) : items) : property;
  return Array.isArray(listed.enum) ? (listed.enum as string[]) : undefined;
}

/** What a flag takes, from the field's schema. */
function kindOf(property: Json): 'integer' | 'boolean' | 'string' {
  return property.type === 'integer' ? 'integer' : property.type === 'boolean' ? 'boolean' : 'string';
}

const helpOf = (property: Json): string =>
  String(property.description ?? property.title ?? '')
    .replace(/\s+/g, ' ')
    .replace(/\.$/, '');

/**
 * The fields of which the command takes exactly one, each by one of its
 * flags, as `exactlyOne`: those of a top-level oneOf of one required field
 * each, or a required field that more than one flag not required gives
 * (`--answer` or `--content-file`; `--key`, required, goes with either).
 */
function exactlyOneOf(input: Json, options: Operation['cli']['options']): { exactlyOne?: string[] } {
  const alternatives = input.oneOf as { required?: string[] }[] | undefined;
  if (!alternatives) {
    const choices = (field: string) =>
      Object.values(options).filter((option) => option.field === field && !option.required).length;
    const chosen = ((input.required ?? []) as string[]).filter((field) => choices(field) > 1);
    if (chosen.length > 1)
      throw new Error(`${String(input.title)}: one field at most may be given by one of its flags`);
    return chosen.length === 1 ? { exactlyOne: chosen } : {};
  }
  const fields = alternatives.map((alternative) => alternative.required?.[0]);
  if (fields.some((field) => field === undefined) || alternatives.some((a) => a.required!.length !== 1)) {
    throw new Error(`${String(input.title)}: a oneOf of the input is one required field per alternative`);
  }
  return { exactlyOne: fields as string[] };
}

function operationEntry(defs: Record<string, Json>, op: Operation): Json {
  const input = defs[op.input]!;
  const pathParams = [...op.rest.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const renamed = Object.fromEntries(Object.entries(op.rest.query_names ?? {}).map(([name, field]) => [field, name]));
  const queryParams =
    op.rest.in === 'query'
      ? Object.keys((input.properties ?? {}) as Json)
          .filter((field) => !pathParams.includes(field))
          .map((field) => ({ name: renamed[field] ?? field, field }))
      : [];
  return {
    id: op.id,
    summary: op.summary,
    input: op.input,
    output: op.output,
    changes: op.changes,
    actor: op.actor,
    capability: op.capability,
    errors: op.errors,
    mcp: op.mcp,
    rest: {
      method: op.rest.method.toUpperCase(),
      path: op.rest.path,
      status: op.rest.status,
      in: op.rest.in,
      ...(op.rest.location ? { location: op.rest.location } : {}),
      pathParams,
      queryParams,
    },
    cli: {
      command: op.cli.command,
      ...(op.cli.example ? { example: op.cli.example } : {}),
      ...exactlyOneOf(input, op.cli.options),
      arguments: op.cli.arguments.map((field) => ({ field, description: helpOf(propertyOf(defs, input, field)) })),
      options: Object.entries(op.cli.options).map(([flags, option]) => {
        const property = propertyOf(defs, input, option.field);
        const choices = choicesOf(defs, property);
        return {
          flags,
          field: option.field,
          ...(option.as ? { as: option.as } : { kind: kindOf(property) }),
          ...(choices ? { choices } : {}),
          // Required when the table says so, or when the input requires its field and no other flag gives it.
          required:
            option.required ??
            (((input.required ?? []) as string[]).includes(option.field) &&
              Object.values(op.cli.options).filter((other) => other.field === option.field).length === 1),
          description: option.description ?? helpOf(property),
        };
      }),
    },
  };
}

export function emitOperations(bundle: Json, operations: Operation[]): Promise<string> {
  const defs = bundle.$defs as Record<string, Json>;
  const statuses = defs.DomainError!['x-http-status'];
  if (!statuses) throw new Error('schemas/domain/domain-error.json: needs x-http-status, the status of each code');
  const code = [
    `// ${HEADER}`,
    `import type * as T from './types.js';`,
    ``,
    `/** Every operation, from schemas/operations.catalog.json: its engine function, schemas and binding on each door. */`,
    `export const operations = ${JSON.stringify(Object.fromEntries(operations.map((op) => [op.id, operationEntry(defs, op)])), null, 2)} as const;`,
    ``,
    `export type OperationId = keyof typeof operations;`,
    `export type Operation = (typeof operations)[OperationId];`,
    `/** Each operation's input (as sent, and as checked: its defaults filled) and output types. */`,
    `export interface OperationTypes {`,
    ...operations.map(
      (op) => `  ${op.id}: { input: T.${op.input}; checked: ${checkedType(defs, op.input)}; output: T.${op.output} };`,
    ),
    `}`,
    ``,
    `/** An operation's input as its engine function takes it: checked, its defaults filled. */`,
    `export type InputOf<K extends OperationId> = OperationTypes[K]['checked'];`,
    ``,
    `/** The HTTP status of each of the room's error codes (schemas/domain/domain-error.json, x-http-status). */`,
    `export const HTTP_STATUS = ${JSON.stringify(statuses)} as const satisfies Record<T.DomainErrorCode, number>;`,
    ``,
    `/** Every REST route as a list: each operation's binding with its id. */`,
    `export const restRoutes = (Object.values(operations) as Operation[]).map((operation) => ({`,
    `  operationId: operation.id,`,
    `  ...operation.rest,`,
    `}));`,
    ``,
    `/**`,
    ` * The engine function of each operation, by its id: (room, who, input) => output,`,
    ` * run by runOperation (generated/operation-runner.ts) once the input is`,
    ` * checked and the caller may act: a participant's operation gets the`,
    ` * participant (Caller), the others the actor as it came.`,
    ` */`,
    `export type EngineOperations<Room, Actor, Caller> = {`,
    `  [K in OperationId]: (`,
    `    room: Room,`,
    `    who: (typeof operations)[K]['actor'] extends 'participant' ? Caller : Actor,`,
    `    input: OperationTypes[K]['checked'],`,
    `  ) => OperationTypes[K]['output'];`,
    `};`,
    ``,
  ].join('\n');
  return prettier.format(code, { parser: 'typescript', printWidth: 120, singleQuote: true });
}
