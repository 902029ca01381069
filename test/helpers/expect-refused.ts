import { expect } from 'vitest';
import type { DomainErrorCode } from '../../generated/types.js';
import { DomainError, type Room } from './engine.js';
import { dumpDatabase } from './room.js';

/** The operation is refused with `code` and `message` (exactly, or matching), and the database is unchanged. */
export function expectRefused(
  room: Room,
  operation: () => unknown,
  code: DomainErrorCode,
  message: string | RegExp,
): DomainError {
  const before = dumpDatabase(room);
  let caught: unknown;
  try {
    operation();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'the operation should have been refused').toBeInstanceOf(DomainError);
  const error = caught as DomainError;
  expect({ code: error.code, message: error.message }).toMatchObject({
    code,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });
  expect(dumpDatabase(room)).toEqual(before);
  return error;
}
