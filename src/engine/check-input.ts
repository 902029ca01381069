import type { ErrorObject, ValidateFunction } from 'ajv';
import { DomainError } from './errors.js';

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

/**
 * Checks an operation's input against its generated validator. A failure
 * names each field and why; size limits are `too_large`.
 */
export function checkInput<T>(validate: ValidateFunction<T>, input: unknown): T {
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
