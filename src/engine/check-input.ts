import type { ErrorObject, ValidateFunction } from 'ajv';
import { DomainError } from './errors.js';
import { MAX_INPUT_DEPTH } from './limits.js';

function describe(error: ErrorObject, root: string | null): string {
  const path = error.instancePath.slice(1).replaceAll('/', '.');
  const where = path === '' ? (root ?? 'input') : root ? `${root}.${path}` : path;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${where} has unknown property '${(error.params as { additionalProperty: string }).additionalProperty}'`;
    case 'enum':
      return `${where} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

/** One line naming each failing field and why; `root` prefixes the paths (e.g. "params"). */
export function formatValidationErrors(errors: ErrorObject[] | null | undefined, root: string | null = null): string {
  return [...new Set((errors ?? []).map((error) => describe(error, root)))].join('; ');
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
  throw new DomainError('invalid_input', formatValidationErrors(errors), {
    errors: errors.map((e) => ({ path: e.instancePath, keyword: e.keyword, message: e.message ?? '' })),
  });
}
