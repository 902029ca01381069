import type { ErrorObject, ValidateFunction } from 'ajv';
import { DomainError } from '../errors.js';
import { MAX_INPUT_DEPTH } from './limits.js';

/** The value at a JSON Pointer of `input` (an Ajv instancePath). */
function valueAt(input: unknown, pointer: string): unknown {
  if (pointer === '') return input;
  let node = input;
  for (const part of pointer.slice(1).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The character x-plain-text found at code unit `at`: `U+202E at index 12` (in code points). */
function hiddenCharacter(value: unknown, at: number): string {
  if (typeof value !== 'string' || !(at >= 0 && at < value.length)) return '';
  const code = value.codePointAt(at)!.toString(16).toUpperCase().padStart(4, '0');
  return ` (U+${code} at index ${[...value.slice(0, at)].length})`;
}

/** The field an error is about, as a message names it: `input_responses.k.action`, under `root` when given. */
function whereOf(error: ErrorObject, root: string | null): string {
  const path = error.instancePath.slice(1).replaceAll('/', '.');
  return path === '' ? (root ?? 'input') : root ? `${root}.${path}` : path;
}

function describe(error: ErrorObject, root: string | null, input: unknown): string {
  const where = whereOf(error, root);
  switch (error.keyword) {
    case 'pattern': {
      const named = (error.parentSchema as { 'x-pattern-name'?: string } | undefined)?.['x-pattern-name'];
      const value = valueAt(input, error.instancePath);
      if (named === undefined) return `${where} ${error.message ?? 'is invalid'}`;
      return `${where} must be ${named}${typeof value === 'string' ? ` (got ${JSON.stringify(value)})` : ''}`;
    }
    case 'x-plain-text':
      return `${where} ${error.message}${hiddenCharacter(valueAt(input, error.instancePath), (error.params as { at: number }).at)}`;
    case 'additionalProperties':
      return `${where} has unknown property '${(error.params as { additionalProperty: string }).additionalProperty}'`;
    case 'enum':
      return `${where} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

/** The names a `oneOf` of `{required: [name]}` branches chooses between, or null for any other oneOf. */
function alternatives(error: ErrorObject): string[] | null {
  const branches = error.schema;
  if (!Array.isArray(branches)) return null;
  const names = branches.map((branch: { required?: unknown[] }) =>
    Object.keys(branch).length === 1 && Array.isArray(branch.required) && branch.required.length === 1
      ? String(branch.required[0])
      : null,
  );
  return names.every((name) => name !== null) ? (names as string[]) : null;
}

/**
 * `oneOf: [{required: [a]}, {required: [b]}]` says "exactly one of a or b":
 * its failure is said so, in place of Ajv's three messages about branches.
 */
function choicesSaid(errors: ErrorObject[], root: string | null): { errors: ErrorObject[]; said: string[] } {
  const said: string[] = [];
  let rest = errors;
  for (const error of errors) {
    if (error.keyword !== 'oneOf') continue;
    const names = alternatives(error);
    if (!names) continue;
    const path = error.instancePath.slice(1).replaceAll('/', '.');
    const where = path === '' ? (root ?? 'input') : root ? `${root}.${path}` : path;
    const listed = names.join(' or ');
    const passing = (error.params as { passingSchemas: number[] | null }).passingSchemas;
    said.push(passing === null ? `${where} needs one of ${listed}` : `${where} takes one of ${listed}, not both`);
    rest = rest.filter(
      (other) =>
        other !== error && !(other.keyword === 'required' && other.schemaPath.startsWith(`${error.schemaPath}/`)),
    );
  }
  return { errors: rest, said };
}

/**
 * A key an object's `propertyNames` refuses: Ajv says why at the object,
 * without the key (`must be a key of letters...`), then "property name must
 * be valid" with the key. Said as one: `input_responses has the key "a b",
 * which must be a key of letters...`.
 */
function keysSaid(
  errors: ErrorObject[],
  root: string | null,
  input: unknown,
): { errors: ErrorObject[]; said: string[] } {
  const said: string[] = [];
  const told = new Set<ErrorObject>();
  errors.forEach((error, at) => {
    if (error.keyword !== 'propertyNames') return;
    const key = JSON.stringify((error.params as { propertyName: string }).propertyName);
    const why = errors[at - 1]?.instancePath === error.instancePath ? errors[at - 1] : undefined;
    // What is wrong with the key, said of the object: what follows the object's name.
    const what = why ? describe(why, root, input).slice(whereOf(why, root).length + 1) : 'is not allowed';
    said.push(`${whereOf(error, root)} has the key ${key}, which ${what}`);
    told.add(error);
    if (why) told.add(why);
  });
  return { errors: errors.filter((error) => !told.has(error)), said };
}

/**
 * The most errors a refusal names: a body of 90,000 unknown keys, under the
 * 1 MiB limit, was answered with 21 MB naming each one. The rest are counted.
 */
export const MAX_ERRORS_SAID = 20;

const andMore = (errors: readonly unknown[]): string =>
  errors.length > MAX_ERRORS_SAID ? `; and ${errors.length - MAX_ERRORS_SAID} more` : '';

/** One line naming each failing field and why; `root` prefixes the paths (e.g. "params"); `input` is what was checked. */
export function formatValidationErrors(
  errors: ErrorObject[] | null | undefined,
  root: string | null = null,
  input: unknown = undefined,
): string {
  const all = errors ?? [];
  const keys = keysSaid(all.slice(0, MAX_ERRORS_SAID), root, input);
  const { errors: rest, said } = choicesSaid(keys.errors, root);
  const told = [...new Set([...rest.map((error) => describe(error, root, input)), ...keys.said, ...said])];
  return told.join('; ') + andMore(all);
}

/** The top-level field under which `input` nests deeper than the limit, or null; walked without recursion. */
function tooDeep(input: unknown): string | null {
  const pending: { value: unknown; depth: number; field: string }[] = [{ value: input, depth: 0, field: 'input' }];
  while (pending.length > 0) {
    const { value, depth, field } = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_INPUT_DEPTH) return field;
    for (const [key, child] of Object.entries(value)) {
      pending.push({ value: child, depth: depth + 1, field: depth === 0 ? key : field });
    }
  }
  return null;
}

/**
 * Checks an operation's input against its generated validator. A failure
 * names each field and why; size limits are `too_large`. A value nested
 * deeper than MAX_INPUT_DEPTH is refused first: the validator and
 * JSON.stringify recurse and would overflow the stack.
 */
export function checkInput<T>(validate: ValidateFunction<T>, input: unknown): T {
  const deep = tooDeep(input);
  if (deep !== null) {
    throw new DomainError('invalid_input', `${deep} nests deeper than ${MAX_INPUT_DEPTH} levels`, {
      errors: [
        {
          path: deep === 'input' ? '' : `/${deep}`,
          keyword: 'maxDepth',
          message: `nests deeper than ${MAX_INPUT_DEPTH} levels`,
        },
      ],
    });
  }
  if (validate(input)) return input;
  const errors = validate.errors ?? [];
  const tooLarge = errors.find((e) => e.keyword === 'x-max-bytes');
  if (tooLarge) {
    const limit = (tooLarge.params as { limit: number }).limit;
    throw new DomainError('too_large', `${formatValidationErrors([tooLarge])} (limit ${limit} bytes)`, { limit });
  }
  throw new DomainError('invalid_input', formatValidationErrors(errors, null, input), {
    errors: errors.slice(0, MAX_ERRORS_SAID).map(fieldError),
  });
}

const pointerPart = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * An error of `details.errors`, at the JSON Pointer of the field it is
 * about: a missing or an unknown property is named by its own path, where
 * Ajv names the object that holds it.
 */
function fieldError(error: ErrorObject): { path: string; keyword: string; message: string } {
  const { instancePath: path, keyword } = error;
  if (keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return { path: `${path}/${pointerPart(missing)}`, keyword, message: error.message ?? 'is required' };
  }
  if (keyword === 'additionalProperties') {
    const unknown = (error.params as { additionalProperty: string }).additionalProperty;
    return { path: `${path}/${pointerPart(unknown)}`, keyword, message: 'is not a property this object takes' };
  }
  return { path, keyword, message: error.message ?? '' };
}
