// A running room process, reached through its REST API: ce's state-changing
// commands go through it when one runs, so its subscribers see the change and
// there is still one writer (PRODUCT.md §5, CLI). Where it listens and the
// operator token come from its runtime file (src/http/runtime-file.ts). The
// routes are the generated table's; the answers are the engine's output
// objects, and a problem+json answer becomes the DomainError it was made of.
import type { Operation } from '../../generated/operations.js';
import type { DomainErrorCode } from '../../generated/types.js';
import { DomainError } from '../engine/errors.js';
import { parseOutsideJson } from '../outside-json.js';
import type { RuntimeInfo } from '../http/runtime-file.js';

/** Long enough for any one operation; a stopped (SIGSTOP) process must not hang ce for ever. */
const TIMEOUT_MS = 30_000;

export interface RoomProcess {
  readonly info: RuntimeInfo;
  /**
   * Runs one operation through its REST route as the local operator, or as
   * `participant` (the Commonroom-Participant header), and returns its output.
   */
  call(operation: Operation, input: Record<string, unknown>, participant: string | null): Promise<unknown>;
}

/**
 * Nothing listens where the runtime file says (the process is stopping, or
 * its pid now belongs to another program): the request was not received, so
 * the command may take the direct path, where the writer's lock decides.
 */
export class RoomNotListening extends Error {}

/** The running room process for `file`, or null when none runs (no runtime file, or its process is gone). */
export async function findRoomProcess(file: string): Promise<RoomProcess | null> {
  const { readRuntimeFile } = await import('../http/runtime-file.js');
  const info = readRuntimeFile(file);
  return info && roomProcess(info);
}

export function roomProcess(info: RuntimeInfo): RoomProcess {
  return {
    info,
    async call(operation, input, participant) {
      const { url, init } = request(info, operation.rest, input, participant);
      let status: number;
      let type: string;
      let text: string;
      try {
        const response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
        status = response.status;
        type = response.headers.get('content-type') ?? '';
        text = await response.text();
      } catch (error) {
        if (causeCode(error) === 'ECONNREFUSED') {
          throw new RoomNotListening(`nothing listens at ${info.base_url}`);
        }
        // Sent, perhaps received: the change may have been made, so no retry.
        throw new Error(
          `the room process ${info.pid} at ${info.base_url} did not answer (${reason(error)}); ` +
            'the change may or may not have been made',
        );
      }
      const body = parse(text);
      if (status >= 200 && status < 300) return body;
      if (type.startsWith('application/problem+json') && isProblem(body)) throw domainError(body);
      throw new Error(`the room process ${info.pid} at ${info.base_url} answered ${status}: ${text.slice(0, 200)}`);
    },
  };
}

/** The route's URL and request: path parameters fill the path, the other fields the body or query string. */
function request(
  info: RuntimeInfo,
  route: Operation['rest'],
  input: Record<string, unknown>,
  participant: string | null,
): { url: URL; init: RequestInit } {
  const fields = { ...input };
  let path: string = route.path;
  for (const name of route.pathParams) {
    path = path.replace(`{${name}}`, segment(name, String(fields[name])));
    delete fields[name];
  }
  const url = new URL(path, info.base_url);
  const headers: Record<string, string> = {
    authorization: `Bearer ${info.operator_token}`,
    accept: 'application/json, application/problem+json',
  };
  // Percent-encoded, so any name travels and the room's actAs says whether it is a participant.
  if (participant !== null) headers['commonroom-participant'] = encodeURIComponent(participant);
  let body: string | undefined;
  if (route.in === 'body') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(fields);
  }
  if (route.in === 'query') {
    for (const { name, field } of route.queryParams) {
      if (fields[field] !== undefined) url.searchParams.set(name, String(fields[field]));
    }
  }
  return { url, init: { method: route.method, headers, body } };
}

/**
 * A path parameter as one URL segment. An empty one, `.` and `..` cannot be
 * one (a URL drops or resolves them), so they are refused here.
 */
function segment(name: string, value: string): string {
  if (value === '' || value === '.' || value === '..') {
    throw new DomainError('invalid_input', `${name} ${JSON.stringify(value)} cannot be sent to the room process`);
  }
  return encodeURIComponent(value);
}

interface Problem {
  code: DomainErrorCode;
  detail: string;
  details?: Record<string, unknown>;
}

const isProblem = (body: unknown): body is Problem =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as Problem).code === 'string' &&
  typeof (body as Problem).detail === 'string';

/** The DomainError the room answered with, its details and all (src/http/rest/problem.ts). */
const domainError = ({ code, detail, details }: Problem): DomainError => new DomainError(code, detail, details);

function parse(text: string): unknown {
  try {
    return parseOutsideJson(text, 'the room process answer');
  } catch {
    return undefined;
  }
}

const causeCode = (error: unknown): unknown => ((error as { cause?: { code?: unknown } }).cause ?? {}).code;

function reason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer in ${TIMEOUT_MS / 1000} s`;
  const code = causeCode(error);
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}
