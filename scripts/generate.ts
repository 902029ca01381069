// npm run generate: emits generated/ from schemas/. This file does the I/O;
// each emitter in scripts/generate/ is a function of the schemas and the
// operation table. `--check` writes nothing and fails when generated/ is
// stale, so the test command catches a schema edit that was not regenerated.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { bundleSchemas, readOperationTable } from './generate/bundle.js';
import { emitCatalogTypes } from './generate/emit-catalog-types.js';
import { emitMcp } from './generate/emit-mcp.js';
import { emitOpenApi } from './generate/emit-openapi.js';
import { emitOperationRunner } from './generate/emit-operation-runner.js';
import { emitOperations } from './generate/emit-operations.js';
import { emitRules } from './generate/emit-rules.js';
import { emitTypes } from './generate/emit-types.js';
import { emitValidators } from './generate/emit-validators.js';
import { HEADER, type Json } from './generate/schema-tools.js';
import { checkTable } from './generate/table.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const schemasDir = path.join(root, 'schemas');
const generatedDir = path.join(root, 'generated');
/** The folder of generated/ whose files are all emitted: one not emitted any more is stale. */
const INPUT_VALIDATORS = 'input-validators';

async function outputs(): Promise<Record<string, string>> {
  const bundle = await bundleSchemas(schemasDir);
  const { table, shape } = await readOperationTable(schemasDir);
  checkTable(table, shape, bundle.$defs as Record<string, Json>);
  const { js, dts, inputJs, inputModules, inputDts, queryJs, queryDts } = await emitValidators(bundle, table);
  const openapi = emitOpenApi(bundle, table.operations);
  return {
    'schema-bundle.json': JSON.stringify(bundle, null, 2) + '\n',
    'catalog.ts': await emitCatalogTypes(shape),
    'types.ts': await emitTypes(bundle),
    'validators.js': js,
    'validators.d.ts': dts,
    'input-validators.js': inputJs,
    'input-validators.d.ts': inputDts,
    ...Object.fromEntries(Object.entries(inputModules).map(([name, code]) => [`${INPUT_VALIDATORS}/${name}`, code])),
    'query-validators.js': queryJs,
    'query-validators.d.ts': queryDts,
    'mcp.ts': await emitMcp(bundle, table.operations),
    'operations.ts': await emitOperations(bundle, table.operations),
    'operation-runner.ts': await emitOperationRunner(table.operations),
    'rules.ts': await emitRules(bundle.$defs as Record<string, Json>, table.operations),
    'openapi.json': JSON.stringify(openapi, null, 2) + '\n',
    'openapi-types.ts': `// ${HEADER}\n` + astToString(await openapiTS(structuredClone(openapi) as never)),
  };
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  if (!check) await mkdir(path.join(generatedDir, INPUT_VALIDATORS), { recursive: true });
  const emitted = await outputs();
  for (const name of await readdir(path.join(generatedDir, INPUT_VALIDATORS)).catch(() => [])) {
    const file = `${INPUT_VALIDATORS}/${name}`;
    if (Object.hasOwn(emitted, file)) continue;
    if (check) stale.push(`${file} (no longer emitted)`);
    else await rm(path.join(generatedDir, file));
  }
  for (const [name, content] of Object.entries(emitted)) {
    const file = path.join(generatedDir, name);
    const current = await readFile(file, 'utf8').catch(() => null);
    if (current === content) continue;
    if (check) stale.push(name);
    else await writeFile(file, content);
  }
  if (stale.length > 0) {
    console.error(`generated/ is stale (${stale.join(', ')}): run \`npm run generate\` and commit the result.`);
    process.exit(1);
  }
  console.log(check ? 'generated/ is up to date with schemas/.' : `generated/ written from schemas/.`);
}

await main();
