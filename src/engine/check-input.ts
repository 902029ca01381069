import type { ErrorObject, ValidateFunction } from 'ajv';
import { DomainError } from './errors.js';

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'input' : error.instancePath.slice(1).replaceAll('/', '.');
  if (error.keyword === 'additionalProperties') {
    return `${where} has unknown property '${(error.params as { additionalProperty: string }).additionalProperty}'`;
  }
  if (error.keyword === 'enum') {
    return `${where} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
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
    throw new DomainError('too_large', `${describe(tooLarge)} (limit ${limit} bytes)`, { limit });
  }
  // oneOf reports each branch; its own line says what the branches mean.
  const messages = [...new Set(errors.map(describe))];
  throw new DomainError('invalid_input', messages.join('; '), {
    errors: errors.map((e) => ({ path: e.instancePath, keyword: e.keyword, message: e.message ?? '' })),
  });
}
