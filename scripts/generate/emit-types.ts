// generated/types.ts: a TypeScript type for every schema (json-schema-to-typescript).
import { compile } from 'json-schema-to-typescript';
import { HEADER, type Json } from './schema-tools.js';

/**
 * The same schema without the titles of its properties, nor the description
 * of one that refers to a shared schema. A property's title is a form label
 * ("Assignee") and such a description says what the field is for;
 * json-schema-to-typescript would make each one a type of its own.
 */
function withoutPropertyTitles(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutPropertyTitles);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === 'properties' && value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value as Json).map(([name, property]) => {
              const { title: _label, ...rest } = property as Json;
              if (typeof rest.$ref === 'string') delete rest.description;
              return [name, withoutPropertyTitles(rest)];
            }),
          )
        : withoutPropertyTitles(value),
    ]),
  );
}

export function emitTypes(bundle: Json): Promise<string> {
  return compile(withoutPropertyTitles(bundle) as never, 'CommonRoomSchemas', {
    bannerComment: `// ${HEADER}`,
    unreachableDefinitions: true,
    strictIndexSignatures: true,
    declareExternallyReferenced: true,
    style: { printWidth: 120 },
  });
}
