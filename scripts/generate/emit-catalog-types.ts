// generated/catalog.ts: the operation table's TypeScript types, from the
// schema of its shape (schemas/operations.catalog.schema.json), so the
// generator reads the table through types that cannot drift from it.
import { compile } from 'json-schema-to-typescript';
import { HEADER, type Json } from './schema-tools.js';

export function emitCatalogTypes(shape: Json): Promise<string> {
  return compile(structuredClone(shape) as never, 'OperationTable', {
    bannerComment: `// ${HEADER}`,
    declareExternallyReferenced: true,
    style: { printWidth: 120 },
  });
}
