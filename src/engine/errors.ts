import type { DomainErrorCode } from '../../generated/types.js';

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

/** Unknown and not-visible tasks answer identically: a task id is not authorization. */
export const unknownTask = (): DomainError => new DomainError('not_found', 'unknown task');

export const unknownHandoff = (handoffId: string): DomainError =>
  new DomainError('not_found', `unknown handoff ${handoffId}`);
