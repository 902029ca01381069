// The operation table (schemas/operations.catalog.json): its types (generated
// from the schema of its shape), and the checks npm run generate makes before
// emitting anything from it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Json } from './schema-tools.js';

export type {
  CliBinding,
  CliOption,
  NoMcpBinding,
  Operation,
  OperationTable,
  RestBinding,
  TasksMethodBinding,
  ToolBinding,
} from '../../generated/catalog.js';
import type { Operation, OperationTable, TasksMethodBinding, ToolBinding } from '../../generated/catalog.js';

export const isTool = (binding: Operation['mcp']): binding is ToolBinding => 'tool' in binding;
export const isTasksMethod = (binding: Operation['mcp']): binding is TasksMethodBinding => 'method' in binding;

/** The table's shape, names that exist and are used once, and fields that the input schema has. */
export function checkTable(table: OperationTable, shape: Json, defs: Record<string, Json>): void {
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(shape);
  if (!validate(table)) {
    throw new Error(
      `schemas/operations.catalog.json: ${(validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join('; ')}`,
    );
  }
  const once = (what: string, values: string[]) => {
    const seen = new Set<string>();
    for (const value of values) {
      if (seen.has(value)) throw new Error(`schemas/operations.catalog.json: ${what} ${value} is used twice`);
      seen.add(value);
    }
  };
  const ops = table.operations;
  once(
    'id',
    ops.map((op) => op.id),
  );
  once(
    'MCP binding',
    ops.flatMap((op) => (isTool(op.mcp) ? [op.mcp.tool] : isTasksMethod(op.mcp) ? [op.mcp.method] : [])),
  );
  once(
    'REST route',
    ops.map((op) => `${op.rest.method} ${op.rest.path}`),
  );
  once(
    'ce command',
    ops.map((op) => op.cli.command),
  );
  for (const op of ops) {
    for (const title of [op.input, op.output]) {
      if (!defs[title]) throw new Error(`operation ${op.id}: no schema titled ${title}`);
    }
    const fields = inputFields(defs[op.input]!);
    const named = [...op.cli.arguments, ...Object.values(op.cli.options).map((option) => option.field)];
    for (const field of named) {
      if (!fields.has(field)) throw new Error(`operation ${op.id}: ce names ${field}, which ${op.input} does not have`);
    }
    for (const param of op.rest.path.matchAll(/\{(\w+)\}/g)) {
      if (!fields.has(param[1]!)) throw new Error(`operation ${op.id}: the path names ${param[1]}, not in ${op.input}`);
    }
  }
}

/** Every property an input schema has, in its oneOf branches too. */
export function inputFields(schema: Json): Set<string> {
  const own = Object.keys((schema.properties ?? {}) as Json);
  const branches = ((schema.oneOf ?? []) as Json[]).flatMap((branch) => Object.keys((branch.properties ?? {}) as Json));
  return new Set([...own, ...branches]);
}
