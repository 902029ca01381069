// A room reached through its REST API: the running room process of a file
// on this machine (its runtime file gives where it listens and the operator
// token), or a room anywhere by its address (--url) with a session token.
// The routes are the generated table's; the answers are the engine's output
// objects, and a problem+json answer becomes the DomainError it was made of.
import type { Operation } from '../../generated/operations.js';
import type { DomainErrorCode } from '../../generated/types.js';
import { DomainError } from '../errors.js';
import { parseOutsideJson } from '../outside-json.js';
import { bodyText, certificateTrouble, failureCode, RoomNotReached, routeUrl, sendToRoom } from './room-http.js';

/** Long enough for any one operation; a stopped (SIGSTOP) process must not hang ce for ever. */
const TIMEOUT_MS = 30_000;

/** Where a room listens and what ce shows it. */
export interface RoomAddress {
  /** http(s)://host:port */
  baseUrl: string;
  /** The operator token (a room on this machine) or a session token. */
  token: string;
  /** A CA certificate (PEM) to trust, for an https room. */
  ca?: Buffer;
  /** The SHA-256 fingerprint of the room's own certificate, for a room on this machine: trusted as it is. */
  pin?: string;
  /** How errors name the room: "the room process 4242 at http://..." or "the room at https://...". */
  name: string;
}

export interface RoomClient {
  readonly address: RoomAddress;
  /**
   * Runs one operation through its REST route (as `participant`, the
   * Commonroom-Participant header, when the operator acts as one) and
   * returns its output.
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
export async function findRoomProcess(file: string): Promise<RoomClient | null> {
  const { readRuntimeFile } = await import('../http/runtime-file.js');
  const info = readRuntimeFile(file);
  if (!info) return null;
  return roomClient({
    baseUrl: info.base_url,
    token: info.operator_token,
    ...(info.tls_fingerprint256 ? { pin: info.tls_fingerprint256 } : {}),
    name: `the room process ${info.pid} at ${info.base_url}`,
  });
}

export function roomClient(address: RoomAddress): RoomClient {
  return {
    address,
    async call(operation, input, participant) {
      const { url, method, headers, body } = request(address, operation.rest, input, participant);
      let status: number;
      let type: string;
      let text: string;
      try {
        const response = await sendToRoom(url, {
          method,
          headers,
          ...(body !== undefined ? { body } : {}),
          ...(address.ca ? { ca: address.ca } : {}),
          ...(address.pin ? { pin: address.pin } : {}),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        status = response.statusCode ?? 0;
        type = String(response.headers['content-type'] ?? '');
        text = await bodyText(response);
      } catch (error) {
        if (error instanceof RoomNotReached) {
          if (error.code === 'ECONNREFUSED') throw new RoomNotListening(`nothing listens at ${address.baseUrl}`);
          // Refused before anything was sent: the certificate, the name, the network.
          const certificate = certificateTrouble(error);
          const why = certificate !== null ? `: ${certificate}` : ` (${describe(error)})`;
          throw new DomainError('unavailable', `cannot reach ${address.name}${why}; nothing was sent`, {
            reason: error.code ?? 'unreachable',
            reached: false,
          });
        }
        // Sent, perhaps received: the change may have been made, so no retry.
        throw new Error(
          `${address.name} did not answer (${describe(error)}); the change may or may not have been made`,
        );
      }
      const answer = parse(text);
      if (status >= 200 && status < 300) return answer;
      if (type.startsWith('application/problem+json') && isProblem(answer)) {
        if (answer.code === 'unauthorized') {
          // The room does not say which, on purpose; the person can still act on it.
          throw new DomainError('unauthorized', `${address.name} refused the token: it is unknown, expired or revoked`);
        }
        throw domainError(answer);
      }
      throw new Error(`${address.name} answered ${status}: ${text.slice(0, 200)}`);
    },
  };
}

/** The route's URL and request: path parameters fill the path, the other fields the body or query string. */
function request(
  address: RoomAddress,
  route: Operation['rest'],
  input: Record<string, unknown>,
  participant: string | null,
): { url: URL; method: string; headers: Record<string, string>; body?: string } {
  const fields = { ...input };
  let path: string = route.path;
  for (const name of route.pathParams) {
    path = path.replace(`{${name}}`, segment(name, String(fields[name])));
    delete fields[name];
  }
  const url = routeUrl(address.baseUrl, path);
  const headers: Record<string, string> = {
    authorization: `Bearer ${address.token}`,
    accept: 'application/json, application/problem+json',
  };
  // Percent-encoded, so any name travels and the room's actAs says whether it is a participant.
  if (participant !== null) headers['commonroom-participant'] = encodeURIComponent(participant);
  if (route.in === 'query') {
    for (const { name, field } of route.queryParams) {
      if (fields[field] !== undefined) url.searchParams.set(name, String(fields[field]));
    }
  }
  if (route.in !== 'body') return { url, method: route.method, headers };
  headers['content-type'] = 'application/json';
  return { url, method: route.method, headers, body: JSON.stringify(fields) };
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

function describe(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer in ${TIMEOUT_MS / 1000} s`;
  }
  return failureCode(error) ?? (error instanceof Error ? error.message : String(error));
}
