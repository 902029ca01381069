import type { ProblemDetails } from '../../generated/types.js';
import { RPC } from '../mcp/protocol.js';

/** The room's error codes and the HTTP layer's own (schemas/rest/problem-details.json). */
export type ProblemCode = ProblemDetails['code'];

/**
 * A request refused by the HTTP layer itself (origin, body, content type,
 * method), before any engine operation. Each surface renders it its own way:
 * problem+json with `code` for REST, a JSON-RPC error with `rpcCode` on /mcp.
 */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    message: string,
    readonly rpcCode: number,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/** What a client told the room is out of files should wait, in seconds. */
const OUT_OF_FILES_RETRY_SECONDS = 5;

/**
 * The refusal for a request that needed one more file than the process may
 * open (EMFILE; ENFILE, the whole system's): the room is full for a moment,
 * a 503 to try again, where it was a 500 with a stack trace as if the room
 * had a bug. Null for any other error.
 */
function outOfFiles(error: unknown): Refusal | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'EMFILE' && code !== 'ENFILE') return null;
  return new Refusal(
    503,
    'unavailable',
    `the room has as many files open as its process may (${code}); try again later`,
    RPC.unavailable,
    { 'Retry-After': String(OUT_OF_FILES_RETRY_SECONDS) },
  );
}

/**
 * `error` as the refusal both doors answer with: a Refusal as it is, or a
 * process out of files, said in a line of the log (the operator's to see;
 * no stack, it is no bug). Null for anything else.
 */
export function refusalOf(error: unknown, log: (message: string) => void, what: string): Refusal | null {
  if (error instanceof Refusal) return error;
  const full = outOfFiles(error);
  if (full) log(`ce: ${what} refused: ${full.message}`);
  return full;
}
