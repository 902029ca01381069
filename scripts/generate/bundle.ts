// Reads schemas/ into one bundled schema whose $defs name every schema file
// by its title, and the operation table beside it. The only part of the
// generator that reads files; the emitters take what these return.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { HEADER, type Json } from './schema-tools.js';
import type { OperationTable } from './table.js';

export const BUNDLE_ID = 'https://commonroom.dev/schemas/room.json';

/** Schema files: every .json under schemas/ but the catalogs and their own schemas. */
async function listSchemaFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listSchemaFiles(full)));
    else if (entry.name.endsWith('.json') && !/\.catalog(\.schema)?\.json$/.test(entry.name)) files.push(full);
  }
  return files;
}

/** One root schema whose $defs name every schema file by its title. */
export async function bundleSchemas(schemasDir: string): Promise<Json> {
  const files = await listSchemaFiles(schemasDir);
  const defs: Record<string, Json> = {};
  for (const file of files) {
    const schema = JSON.parse(await readFile(file, 'utf8')) as Json;
    const title = schema.title;
    if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) {
      throw new Error(`${path.relative(schemasDir, file)}: needs a PascalCase "title"`);
    }
    if (defs[title]) throw new Error(`${path.relative(schemasDir, file)}: title ${title} is used twice`);
    defs[title] = { $ref: './' + path.relative(schemasDir, file).split(path.sep).join('/') };
  }
  // Bundling turns every file reference into an internal one; the shallowest
  // place a schema is referred to from ($defs/<Title>) becomes its home.
  const bundled = (await $RefParser.bundle(
    path.join(schemasDir, 'room.json'),
    { $defs: defs },
    {
      resolve: { external: true },
    },
  )) as Json;
  const bundledDefs = bundled.$defs as Record<string, Json>;
  for (const [title, def] of Object.entries(bundledDefs)) {
    if (typeof def.$ref === 'string') throw new Error(`bundling left $defs/${title} as a reference to ${def.$ref}`);
    delete def.$schema;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: BUNDLE_ID,
    $comment: HEADER,
    title: 'CommonRoomSchemas',
    $defs: bundledDefs,
  };
}

/** The operation table and the schema of its shape. */
export async function readOperationTable(schemasDir: string): Promise<{ table: OperationTable; shape: Json }> {
  const read = async (name: string) => JSON.parse(await readFile(path.join(schemasDir, name), 'utf8')) as unknown;
  return {
    table: (await read('operations.catalog.json')) as OperationTable,
    shape: (await read('operations.catalog.schema.json')) as Json,
  };
}
