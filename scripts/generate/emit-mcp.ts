// generated/mcp.ts: the JSON-RPC dispatch table (from the x-mcp annotations
// of schemas/mcp/*.params.json) and tools/list (from the operation table).
import prettier from 'prettier';
import { compactSchema, HEADER, leanInputSchema, standaloneSchema, type Json } from './schema-tools.js';
import { isTasksMethod, isTool, type Operation, type ToolBinding } from './table.js';

/**
 * A tool's outputSchema: its output, compact, or ToolError for a refused
 * call. A refusal is a result with isError and structuredContent too, and
 * the tools spec wants every structuredContent to conform to the declared
 * schema.
 */
function toolOutputSchema(defs: Record<string, Json>, output: string): Json {
  return {
    type: 'object',
    anyOf: [compactSchema(defs, { $ref: `#/$defs/${output}` }), compactSchema(defs, { $ref: '#/$defs/ToolError' }, 1)],
  };
}

/** tools/list: each tool's input schema complete and standing alone, its output compact; hints from the table. */
export function toolsOf(defs: Record<string, Json>, operations: Operation[]): Json[] {
  return operations
    .filter((op): op is Operation & { mcp: ToolBinding } => isTool(op.mcp))
    .map(({ mcp, input, output, changes }) => ({
      name: mcp.tool,
      title: mcp.title,
      description: mcp.description,
      inputSchema: leanInputSchema(standaloneSchema(defs, input)),
      // Reading tools declare what they answer. A tool that changes something answers with the record
      // as its reading tool shows it (its description says which), and a task's result is the assignee's
      // own CallToolResult: neither repeats a schema, so tools/list stays small enough to list.
      ...(changes ? {} : { outputSchema: toolOutputSchema(defs, output) }),
      // A host reads an absent hint as its riskier default, so every tool states all four.
      annotations: {
        title: mcp.title,
        readOnlyHint: !changes,
        destructiveHint: mcp.destructive,
        idempotentHint: mcp.idempotent,
        openWorldHint: false,
      },
    }));
}

export function emitMcp(bundle: Json, operations: Operation[]): Promise<string> {
  const defs = bundle.$defs as Record<string, Json>;
  const methods = Object.entries(defs)
    .filter(([, schema]) => typeof schema['x-mcp-method'] === 'string')
    .map(([title, schema]) => ({
      method: schema['x-mcp-method'] as string,
      handler: schema['x-mcp-handler'] as string,
      nameParam: (schema['x-mcp-name-param'] as string | undefined) ?? null,
      requiresExtension: (schema['x-mcp-requires-extension'] as string | undefined) ?? null,
      title,
    }))
    .sort((a, b) => a.method.localeCompare(b.method));
  const tools = toolsOf(defs, operations);
  const toolOps = operations.filter((op) => isTool(op.mcp));
  const code = [
    `// ${HEADER}`,
    `import type { ValidateFunction } from 'ajv';`,
    `import type * as T from './types.js';`,
    `import {`,
    ...[...new Set(methods.map((m) => `validate${m.title}`))].map((v) => `  ${v},`),
    `} from './input-validators.js';`,
    ``,
    `/** The JSON-RPC dispatch table: method → params validator → the handler that calls the engine. */`,
    `export const mcpMethods = {`,
    ...methods.map(
      (m) =>
        `  ${JSON.stringify(m.method)}: { handler: ${JSON.stringify(m.handler)}, validateParams: validate${m.title} as ValidateFunction<T.${m.title}>, nameParam: ${JSON.stringify(m.nameParam)}, requiresExtension: ${JSON.stringify(m.requiresExtension)} },`,
    ),
    `} as const;`,
    ``,
    `export type McpMethod = keyof typeof mcpMethods;`,
    `export type McpHandlerName = (typeof mcpMethods)[McpMethod]['handler'];`,
    `/** The params type of each handler. */`,
    `export interface McpHandlerParams {`,
    ...methods.map((m) => `  ${m.handler}: T.${m.title};`),
    `}`,
    ``,
    `/** tools/list, from the operation table; each input schema stands alone, each output is compact. */`,
    `export const toolCatalog = ${JSON.stringify(tools, null, 2)} as const;`,
    ``,
    `export type ToolName = (typeof toolCatalog)[number]['name'];`,
    `/** The operation each tool runs. */`,
    `export const toolOperations = ${JSON.stringify(Object.fromEntries(toolOps.map((op) => [(op.mcp as ToolBinding).tool, op.id])), null, 2)} as const;`,
    `/** The tools that answer with a task handle when the request declares the Tasks extension. */`,
    `export const taskTools = ${JSON.stringify(toolOps.filter((op) => (op.mcp as ToolBinding).runs_as_task).map((op) => (op.mcp as ToolBinding).tool))} as const;`,
    `export type TaskToolName = (typeof taskTools)[number];`,
    `/** The operation each Tasks method runs. */`,
    `export const tasksMethodOperations = ${JSON.stringify(Object.fromEntries(operations.filter((op) => isTasksMethod(op.mcp)).map((op) => [(op.mcp as { method: string }).method, op.id])), null, 2)} as const;`,
    ``,
  ].join('\n');
  return prettier.format(code, { parser: 'typescript', printWidth: 120, singleQuote: true });
}
