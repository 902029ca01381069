// The official shapes of MCP 2026-07-28 and its Tasks extension, from two
// sources. Always: the official SDK's own schemas (the zod schemas of
// @modelcontextprotocol/core and @modelcontextprotocol/ext-tasks/core/v2,
// dev dependencies). In addition, when MCP_SCHEMA_DIR names a folder holding
// the official JSON Schema files (mcp-2026-07-28.schema.json and
// ext-tasks.schema.json), every value is also checked against them with Ajv
// (draft 2020-12). The files are never copied into the project.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as core from '@modelcontextprotocol/core';
import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import * as tasks from '@modelcontextprotocol/ext-tasks/core/v2';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

export type SchemaDocument = 'core' | 'tasks';

// ---------------------------------------------------------------------------
// The SDK's schemas

interface ZodLike {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ZodIssue[] } };
}
interface ZodIssue {
  path: PropertyKey[];
  message: string;
}

const coreSchemas = core as unknown as Record<string, ZodLike | undefined>;
const tasksSchemas = tasks as unknown as Record<string, ZodLike | undefined>;

/** A JSON-RPC error with this code (the 2026-07-28 error definitions name one code each). */
function errorWithCode(code: number, data?: (data: unknown) => boolean): ZodLike {
  return {
    safeParse(value) {
      const issues: ZodIssue[] = [];
      const error = value as { code?: unknown; message?: unknown; data?: unknown } | null;
      if (typeof error !== 'object' || error === null) issues.push({ path: [], message: 'must be an error object' });
      else {
        if (error.code !== code) issues.push({ path: ['code'], message: `must be ${code}` });
        if (typeof error.message !== 'string') issues.push({ path: ['message'], message: 'must be a string' });
        if (data && !data(error.data))
          issues.push({ path: ['data'], message: 'does not have the shape the code needs' });
      }
      return issues.length === 0 ? { success: true } : { success: false, error: { issues } };
    },
  };
}

/** A JSON-RPC response (envelope and id) whose `result` or `error` has the inner shape. */
function responseWith(member: 'result' | 'error', inner: ZodLike): ZodLike {
  const envelope = member === 'result' ? core.JSONRPCResultResponseSchema : core.JSONRPCErrorResponseSchema;
  return {
    safeParse(value) {
      const outer = (envelope as unknown as ZodLike).safeParse(value);
      if (!outer.success) return outer;
      const nested = inner.safeParse((value as Record<string, unknown>)[member]);
      if (nested.success) return nested;
      return {
        success: false,
        error: { issues: nested.error.issues.map((i) => ({ ...i, path: [member, ...i.path] })) },
      };
    },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The error definitions of 2026-07-28 that the SDK has no schema of: each
 * names one code (the SDK client's ProtocolErrorCode, and -32020, the
 * HeaderMismatch code it documents). The first four are error objects, the
 * last three whole error responses.
 */
const errorDefinitions: Record<string, ZodLike> = {
  ParseError: errorWithCode(ProtocolErrorCode.ParseError),
  InvalidRequestError: errorWithCode(ProtocolErrorCode.InvalidRequest),
  MethodNotFoundError: errorWithCode(ProtocolErrorCode.MethodNotFound),
  InvalidParamsError: errorWithCode(ProtocolErrorCode.InvalidParams),
  HeaderMismatchError: responseWith('error', errorWithCode(-32020)),
  UnsupportedProtocolVersionError: responseWith(
    'error',
    errorWithCode(
      ProtocolErrorCode.UnsupportedProtocolVersion,
      (data) => isObject(data) && Array.isArray(data.supported) && typeof data.requested === 'string',
    ),
  ),
  MissingRequiredClientCapabilityError: responseWith(
    'error',
    errorWithCode(
      ProtocolErrorCode.MissingRequiredClientCapability,
      (data) => isObject(data) && isObject(data.requiredCapabilities),
    ),
  ),
};

/**
 * The SDK schema of a definition: `XSchema` of the core package, `XV2Schema`
 * of the Tasks package; `XResponse` is the JSON-RPC response whose result is
 * `X`; the error definitions above.
 */
function sdkSchema(document: SchemaDocument, name: string): ZodLike | undefined {
  if (document === 'tasks') return tasksSchemas[`${name}V2Schema`];
  // The core package still has the tasks of an earlier revision; in 2026-07-28 they are the extension's.
  if (/Task/.test(name)) return undefined;
  if (Object.hasOwn(errorDefinitions, name)) return errorDefinitions[name];
  // The core package has the requests an InputRequest may be, not the union; the Tasks package has it.
  if (name === 'InputRequest') return tasksSchemas.InputRequestV2Schema;
  const own = coreSchemas[`${name}Schema`];
  if (own) return own;
  const result = name.endsWith('Response') ? coreSchemas[`${name.slice(0, -'Response'.length)}Schema`] : undefined;
  return result && responseWith('result', result);
}

// ---------------------------------------------------------------------------
// The official JSON Schema files, when MCP_SCHEMA_DIR names them

/** The formats the official schemas use, checked loosely (Ajv ships none). */
function addFormats(ajv: Ajv2020): Ajv2020 {
  ajv.addFormat('uri', /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/);
  ajv.addFormat('uri-reference', /^[^\s]*$/);
  ajv.addFormat('byte', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i.test(value) &&
      !Number.isNaN(Date.parse(value)),
  });
  return ajv;
}

export const newAjv = (): Ajv2020 => addFormats(new Ajv2020({ strict: false, allErrors: true }));

interface SchemaFiles {
  dir: string;
  get(document: SchemaDocument, name: string): ValidateFunction | undefined;
}

function loadSchemaFiles(dir: string): SchemaFiles {
  const read = (file: string): Record<string, unknown> => {
    try {
      return JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`MCP_SCHEMA_DIR=${dir}: cannot read ${file} (${(error as Error).message})`);
    }
  };
  const coreDocument = read('mcp-2026-07-28.schema.json');
  const tasksDocument = read('ext-tasks.schema.json');
  // The core document declares no $id: its `#/$defs/...` references resolve against its file URL.
  const coreId =
    (coreDocument.$id as string | undefined) ?? pathToFileURL(path.join(dir, 'mcp-2026-07-28.schema.json')).href;
  const tasksId = tasksDocument.$id as string;
  const ajv = newAjv();
  ajv.addSchema(coreDocument, coreId);
  ajv.addSchema(tasksDocument);
  const defs = { core: coreDocument.$defs as object, tasks: tasksDocument.$defs as object };
  return {
    dir,
    get: (document, name) =>
      Object.hasOwn(defs[document], name)
        ? ajv.getSchema(`${document === 'core' ? coreId : tasksId}#/$defs/${name}`)
        : undefined,
  };
}

/** The folder of the official JSON Schema files, or null when MCP_SCHEMA_DIR is not set. */
export const schemaFiles: SchemaFiles | null = process.env.MCP_SCHEMA_DIR
  ? loadSchemaFiles(path.resolve(process.env.MCP_SCHEMA_DIR))
  : null;

// ---------------------------------------------------------------------------
// Assertions

/** Whether every source in use defines `name` (the SDK always; the files when given). */
export const defines = (document: SchemaDocument, name: string): boolean =>
  sdkSchema(document, name) !== undefined && (schemaFiles === null || schemaFiles.get(document, name) !== undefined);

const issuesOf = (issues: ZodIssue[]): string[] =>
  issues.map(
    (issue) => `${issue.path.length > 0 ? `/${issue.path.map(String).join('/')}` : '(root)'} ${issue.message}`,
  );

const listErrors = (errors: ValidateFunction['errors']): string[] =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);

/**
 * Asserts `value` is valid against the official definition: the SDK's schema,
 * and the JSON Schema file's when MCP_SCHEMA_DIR names them, listing every
 * violation if not.
 */
export function expectOfficial(document: SchemaDocument, name: string, value: unknown, label = name): void {
  const sdk = sdkSchema(document, name);
  if (!sdk) throw new Error(`the SDK has no schema for ${document} ${name}`);
  const parsed = sdk.safeParse(value);
  const shown = JSON.stringify(value).slice(0, 800);
  expect(parsed.success ? [] : issuesOf(parsed.error.issues), `${label} against the SDK's ${name}: ${shown}`).toEqual(
    [],
  );
  if (!schemaFiles) return;
  const validate = schemaFiles.get(document, name);
  if (!validate) throw new Error(`${schemaFiles.dir} has no ${document} $defs/${name}`);
  const valid = validate(value);
  expect(valid ? [] : listErrors(validate.errors), `${label} against ${document} $defs/${name}: ${shown}`).toEqual([]);
}

const compiled = new WeakMap<object, ValidateFunction>();

/** Asserts `value` is valid against a schema given inline (a tool's outputSchema), compiled once per schema object. */
export function expectValidAgainst(schema: Record<string, unknown>, value: unknown, label: string): void {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = newAjv().compile(schema);
    compiled.set(schema, validate);
  }
  const valid = validate(value);
  expect(valid ? [] : listErrors(validate.errors), `${label}: ${JSON.stringify(value).slice(0, 800)}`).toEqual([]);
}
