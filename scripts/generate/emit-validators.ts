// generated/validators.js, input-validators.js and query-validators.js: Ajv
// standalone validators, compiled once here so the room never compiles a schema.
// Defaults are applied by the validators (useDefaults), so no code restates
// one. Query strings are coerced to their types by validators of their own
// (coerceTypes), used only for REST query parameters.
import { Ajv2020, _, str, type KeywordCxt, type Options } from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';
import { usePattern } from 'ajv/dist/vocabularies/code.js';
import prettier from 'prettier';
import { BUNDLE_ID } from './bundle.js';
import { defaultedKeys, HEADER, type Json } from './schema-tools.js';
import type { OperationTable } from './table.js';

/** Enforces a size limit on serialized JSON (UTF-8 bytes), e.g. a task result. */
function addMaxBytesKeyword(ajv: Ajv2020): void {
  ajv.addKeyword({
    keyword: 'x-max-bytes',
    schemaType: 'number',
    code(cxt: KeywordCxt) {
      cxt.fail(_`new TextEncoder().encode(JSON.stringify(${cxt.data})).length > ${cxt.schema}`);
    },
    error: {
      message: ({ schema }: { schema: number }) => str`must NOT be larger than ${schema} bytes as JSON`,
      params: ({ schema }: { schema: number }) => _`{limit: ${schema}}`,
    },
  });
}

/**
 * What `x-plain-text` refuses in a name, a title or a summary: characters
 * that hide or disguise text where people read it (a list, a terminal, a
 * log). Control characters (C0, DEL, C1; a summary keeps tab and line feed),
 * bidirectional embeddings, overrides, isolates and marks, and the invisible
 * zero-width space, word joiner, invisible operators, Mongolian vowel
 * separator and BOM. The zero-width joiner and non-joiner stay: emoji
 * sequences and scripts such as Persian need them. Free text (the file,
 * constraints, notes, answers) keeps everything.
 */
export const HIDDEN_CHARACTERS = {
  line: '[\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u180E\\u200B\\u200E\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]',
  lines:
    '[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u061C\\u180E\\u200B\\u200E\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]',
} as const;

/** `x-plain-text: line | lines`: a string without HIDDEN_CHARACTERS; the error says where the first one is. */
function addPlainTextKeyword(ajv: Ajv2020): void {
  ajv.addKeyword({
    keyword: 'x-plain-text',
    type: 'string',
    schemaType: 'string',
    code(cxt: KeywordCxt) {
      const kind = cxt.schema as keyof typeof HIDDEN_CHARACTERS;
      if (!Object.hasOwn(HIDDEN_CHARACTERS, kind)) throw new Error(`x-plain-text must be line or lines, not ${kind}`);
      const hidden = usePattern(cxt, HIDDEN_CHARACTERS[kind]);
      cxt.fail(_`${hidden}.test(${cxt.data})`);
    },
    error: {
      message: ({ schema }: { schema: string }) =>
        schema === 'lines'
          ? str`must not contain control (but tab and line feed), bidi-control or invisible characters`
          : str`must not contain control, bidi-control or invisible characters`,
      // Where the first one is, found by the same expression, so the message can name it.
      params: (cxt) =>
        _`{kind: ${cxt.schema}, at: ${usePattern(cxt as unknown as KeywordCxt, HIDDEN_CHARACTERS[cxt.schema as keyof typeof HIDDEN_CHARACTERS])}.exec(${cxt.data}).index}`,
    },
  });
}

function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    // `oneOf: [{required: [a]}, {required: [b]}]` names properties declared beside it.
    strictRequired: false,
    allowUnionTypes: true,
    validateFormats: false,
    useDefaults: true,
    // Errors carry their schema: a pattern's x-pattern-name says what it means (src/engine/check-input.ts).
    verbose: true,
    code: { source: true, esm: true, lines: true },
    // A $ref is a call to the one validator of its schema, not a copy of it: two fifths less code to load.
    inlineRefs: false,
    ...options,
  });
  addMaxBytesKeyword(ajv);
  addPlainTextKeyword(ajv);
  // Annotations the generator reads to build the JSON-RPC dispatch table.
  ajv.addVocabulary(['x-mcp-method', 'x-mcp-handler', 'x-mcp-name-param', 'x-mcp-requires-extension']);
  // What a pattern means, in words, for the message of a value that does not match it; the HTTP status of each
  // error code (read by generated/operations.ts).
  ajv.addVocabulary(['x-pattern-name', 'x-http-status', 'x-allows', 'x-allows-description']);
  return ajv;
}

async function moduleOf(ajv: Ajv2020, refs: Record<string, string>): Promise<string> {
  // Ajv's ESM output still loads its runtime helpers with require().
  const code =
    `// ${HEADER}\n` +
    `import { createRequire } from 'node:module';\n` +
    `const require = createRequire(import.meta.url);\n` +
    standalone.default(ajv, refs).replace(/^"use strict";/, '');
  return prettier.format(code, { parser: 'babel', printWidth: 120 });
}

/** A CommonJS module of one validator, exported as `validate` (inputValidatorModules). */
async function commonJsModuleOf(ajv: Ajv2020, ref: string): Promise<string> {
  const code = `// ${HEADER}\n` + standalone.default(ajv, { validate: ref });
  return prettier.format(code, { parser: 'babel', printWidth: 120 });
}

/**
 * The validators a room checks requests with, each in a module of its own
 * (`input-validators/TITLE.cjs`) that `input-validators.js` reads at the
 * validator's first call. A room's start then compiles none of them (a third
 * of a megabyte of code, the largest part of what a start loaded) and its
 * first request only its own; CommonJS, because only `require()` loads a
 * module synchronously on Node.js 20, and a validator is called synchronously.
 */
async function inputValidatorModules(
  bundle: Json,
  titles: string[],
): Promise<{ index: string; modules: Record<string, string> }> {
  const ajv = createAjv({ code: { source: true, esm: false, lines: true } });
  ajv.addSchema(bundle);
  const modules: Record<string, string> = {};
  for (const title of titles) modules[`${title}.cjs`] = await commonJsModuleOf(ajv, `${BUNDLE_ID}#/$defs/${title}`);
  const index =
    `// ${HEADER}\n` +
    `// Each validator's code is in input-validators/TITLE.cjs, read at its first call.\n` +
    `import { createRequire } from 'node:module';\n\n` +
    `const require = createRequire(import.meta.url);\n\n` +
    `/** The validator in input-validators/TITLE.cjs, read when it is first called. */\n` +
    `function readAtFirstCall(title) {\n` +
    `  let validate = null;\n` +
    `  function validateInput(data) {\n` +
    `    validate ??= require(\`./input-validators/\${title}.cjs\`).validate;\n` +
    `    const valid = validate(data);\n` +
    `    validateInput.errors = validate.errors;\n` +
    `    return valid;\n` +
    `  }\n` +
    `  validateInput.errors = null;\n` +
    `  return validateInput;\n` +
    `}\n\n` +
    titles.map((t) => `export const validate${t} = readAtFirstCall(${JSON.stringify(t)});\n`).join('');
  return { index: await prettier.format(index, { parser: 'babel', printWidth: 120 }), modules };
}

/** The type a validator checks: the schema's, with defaulted properties present once validated. */
export function checkedType(defs: Record<string, Json>, title: string): string {
  const keys = defaultedKeys(defs[title]!);
  return keys.length === 0
    ? `T.${title}`
    : `T.${title} & Required<Pick<T.${title}, ${keys.map((k) => JSON.stringify(k)).join(' | ')}>>`;
}

export async function emitValidators(
  bundle: Json,
  table: OperationTable,
): Promise<{
  js: string;
  dts: string;
  inputJs: string;
  inputModules: Record<string, string>;
  inputDts: string;
  queryJs: string;
  queryDts: string;
}> {
  const defs = bundle.$defs as Record<string, Json>;
  const titles = Object.keys(defs);
  const ajv = createAjv();
  ajv.addSchema(bundle);
  const refsOf = (some: string[]) => Object.fromEntries(some.map((t) => [`validate${t}`, `${BUNDLE_ID}#/$defs/${t}`]));
  const header = `// ${HEADER}\nimport type { ValidateFunction } from 'ajv';\nimport type * as T from './types.js';\n\n`;
  const declarations = (some: string[]) =>
    header +
    some.map((t) => `export declare const validate${t}: ValidateFunction<${checkedType(defs, t)}>;\n`).join('');
  const js = await moduleOf(ajv, refsOf(titles));
  const dts = declarations(titles);
  // What the room checks as requests arrive (operation inputs, MCP params), apart from every schema's validators
  // (which tests and clients use), each read at its first call.
  const inputTitles = [
    ...new Set([
      ...table.operations.map((op) => op.input),
      ...titles.filter((t) => typeof defs[t]!['x-mcp-method'] === 'string'),
    ]),
  ].sort();
  const { index: inputJs, modules: inputModules } = await inputValidatorModules(bundle, inputTitles);
  const inputDts = declarations(inputTitles);

  const queryTitles = [...new Set(table.operations.filter((op) => op.rest.in === 'query').map((op) => op.input))];
  const coercing = createAjv({ coerceTypes: true });
  coercing.addSchema(bundle);
  const queryJs = await moduleOf(
    coercing,
    Object.fromEntries(queryTitles.map((t) => [`validateQuery${t}`, `${BUNDLE_ID}#/$defs/${t}`])),
  );
  const queryDts =
    header +
    queryTitles
      .map(
        (t) =>
          `/** ${t} from a query string: text coerced to the schema's types. */\nexport declare const validateQuery${t}: ValidateFunction<${checkedType(defs, t)}>;\n`,
      )
      .join('');
  return { js, dts, inputJs, inputModules, inputDts, queryJs, queryDts };
}
