// The official MCP 2026-07-28 and Tasks-extension JSON Schemas, compiled once
// with Ajv (draft 2020-12), read from the shared folder beside the repository
// (CI puts a copy of shared/ next to the clone). Never copied into the project.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedMcp = path.resolve(repoRoot, '../shared/mcp');

const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(sharedMcp, file), 'utf8'));

const coreDocument = readJson('mcp-2026-07-28.schema.json');
const tasksDocument = readJson('ext-tasks.schema.json');

/**
 * The core document declares no $id, so it is added under its file URL, the
 * base its `#/$defs/...` references resolve against. The Tasks document
 * declares its own $id.
 */
export const CORE_ID =
  (coreDocument.$id as string | undefined) ?? pathToFileURL(path.join(sharedMcp, 'mcp-2026-07-28.schema.json')).href;
export const TASKS_ID = tasksDocument.$id as string;

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

const ajv = newAjv();
ajv.addSchema(coreDocument, CORE_ID);
ajv.addSchema(tasksDocument);

export type SchemaDocument = 'core' | 'tasks';

const definitions: Record<SchemaDocument, Record<string, unknown>> = {
  core: coreDocument.$defs as Record<string, unknown>,
  tasks: tasksDocument.$defs as Record<string, unknown>,
};

/** Whether the official document defines `name` (some error shapes may not exist). */
export const defines = (document: SchemaDocument, name: string): boolean => Object.hasOwn(definitions[document], name);

export function officialSchema(document: SchemaDocument, name: string): ValidateFunction {
  const id = document === 'core' ? CORE_ID : TASKS_ID;
  const validate = ajv.getSchema(`${id}#/$defs/${name}`);
  if (!validate) throw new Error(`the ${document} schema has no $defs/${name}`);
  return validate;
}

const listErrors = (errors: ValidateFunction['errors']): string[] =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);

/** Asserts `value` is valid against the official definition, listing every violation if not. */
export function expectOfficial(document: SchemaDocument, name: string, value: unknown, label = name): void {
  const validate = officialSchema(document, name);
  const valid = validate(value);
  expect(
    valid ? [] : listErrors(validate.errors),
    `${label} against ${document} $defs/${name}: ${JSON.stringify(value).slice(0, 800)}`,
  ).toEqual([]);
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
