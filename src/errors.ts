import type { DomainErrorCode } from '../generated/types.js';

/**
 * A refused engine operation. The code is stable; each adapter maps it once
 * (REST status, MCP tool error, JSON-RPC code). Messages are written for the
 * client and never carry internals.
 */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toJSON(): { code: DomainErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

export const isDomainError = (value: unknown): value is DomainError => value instanceof DomainError;

/**
 * `invalid_input` for a value its schema allows but the room does not (an
 * assignee who is no participant, a diff that does not apply): the message
 * `FIELD SAID`, and the field named in `details` as the schema's own
 * refusals name theirs (`field`, and `errors` with its JSON Pointer), so
 * that every refusal of bad input lists what was wrong the same way.
 */
export function invalidField(field: string, said: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError('invalid_input', `${field} ${said}`, {
    ...details,
    field,
    errors: [{ path: `/${field}`, keyword: 'x-room', message: said }],
  });
}

/**
 * A refusal of bad input that names each field as the door that took it
 * does (REST's `?id=` for `task_id`, MCP's `inputResponses` for
 * `input_responses`): in its message and in each of its errors, so that the
 * answer names one field one way.
 */
export function inDoorTerms(error: DomainError, names: readonly { field: string; name: string }[]): DomainError {
  if (error.code !== 'invalid_input' || names.length === 0) return error;
  const said = (text: string) =>
    names.reduce((renamed, { field, name }) => renamed.replace(new RegExp(`\\b${field}\\b`, 'g'), name), text);
  const errors = error.details?.errors;
  const details = Array.isArray(errors)
    ? {
        ...error.details,
        errors: errors.map((entry: { path: string; keyword: string; message: string }) => ({
          ...entry,
          path: said(entry.path),
          message: said(entry.message),
        })),
      }
    : error.details;
  return new DomainError(error.code, said(error.message), details);
}

/** Unknown and not-visible tasks answer identically: a task id is not authorization. */
export const unknownTask = (): DomainError => new DomainError('not_found', 'unknown task');

/** A folder given where a room's file goes (ce's FILE, a room opened). */
export const folderGiven = (folder: string): DomainError =>
  new DomainError('invalid_input', `${folder} is a folder: give the room's markdown file`);

export const unknownHandoff = (handoffId: string): DomainError =>
  new DomainError('not_found', `unknown handoff ${handoffId}`);

/** Why the disk refused a write, as answers name it in details.reason. */
export type StorageReason = 'disk full' | 'I/O error' | 'busy';

/**
 * The disk refused a change: its commit (or a write of the artifact) failed,
 * and nothing of it was kept. Not a refusal of the request: MCP answers it
 * as a JSON-RPC error, never a tool result. `fatal` when the kernel may have
 * dropped what it was to write (a failed fsync): the process cannot trust
 * what it would read back, and stops (PostgreSQL's rule since 2018).
 */
export class StorageError extends DomainError {
  constructor(
    readonly reason: StorageReason,
    message: string,
    readonly fatal: boolean,
    cause?: string,
  ) {
    super(reason === 'disk full' ? 'disk_full' : 'unavailable', message, {
      reason,
      ...(cause ? { cause } : {}),
    });
    this.name = 'StorageError';
  }
}

export const isStorageError = (value: unknown): value is StorageError => value instanceof StorageError;

/**
 * What a failed SQLite statement or commit means for the room: a full disk
 * (refused, writes taken again once there is room), a busy database (refused,
 * try again), or an I/O error or corruption (fatal). Any other error is
 * returned as it is.
 */
export function storageErrorOf(error: unknown, doing: string): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  if (code === 'SQLITE_FULL') {
    return new StorageError(
      'disk full',
      `the disk is full (while ${doing}): nothing of it was kept; reads go on, and writes are taken again once there is room`,
      false,
      code,
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StorageError(
      'busy',
      `the sidecar is busy (while ${doing}): nothing was changed; try again`,
      false,
      code,
    );
  }
  if (/^SQLITE_(IOERR|CORRUPT|CANTOPEN|NOTADB|PROTOCOL|READONLY)/.test(code)) {
    return new StorageError(
      'I/O error',
      `the disk failed to write the sidecar (${code}, while ${doing}): the change is not acknowledged; read the room again once it is back before relying on it`,
      true,
      code,
    );
  }
  return error; // a statement the room got wrong: not the disk's doing
}
