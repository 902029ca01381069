// What every answer of the room must be, whatever was sent (docs/reference.md: the MCP
// and REST error tables), and what a fuzz case expects on top of that.
import { restRoutes } from '../../generated/operations.js';
import type { WireAnswer, WireRequest } from './wire.js';

/** The room's page: the files GET / and /page/... answer, and their types. */
const PAGE_FILES: Record<string, string> = {
  '/': 'text/html; charset=utf-8',
  '/page/room.js': 'text/javascript; charset=utf-8',
  '/page/room.css': 'text/css; charset=utf-8',
  '/page/icon.svg': 'image/svg+xml',
};

/** What a case expects beyond the rules every answer keeps. */
export type Expectation =
  /** Only the general rules; not one of `notStatus`, and no detail matching `notDetail`. */
  | { is: 'any'; notStatus?: number[]; notDetail?: RegExp }
  /** Not a success: an error of any kind, a tool error included. */
  | { is: 'refused' }
  /** On /mcp, got past the transport: 200 with a result (a tool error too) or a refusal by the room. */
  | { is: 'answered'; notToolCode?: string[] }
  /** A JSON-RPC error with this status and one of these codes. */
  | { is: 'rpc'; status: number; codes: number[] }
  /** A problem+json with this status and code; `detail` must match when given. */
  | { is: 'problem'; status: number; code: string; detail?: RegExp }
  /** A problem+json with one of these status/code pairs. */
  | { is: 'problem-of'; pairs: [number, string][] }
  /** A tool result with isError and this structuredContent.error.code. */
  | { is: 'tool-error'; code: string }
  /** 202 and no body (a JSON-RPC notification). */
  | { is: 'notification' }
  /** A 2xx success (a tool result that is not an error). */
  | { is: 'ok' }
  /** An SSE stream. */
  | { is: 'stream' };

/** HTTP statuses /mcp answers a JSON-RPC error with, and the codes each may carry (docs/reference.md, "Errors before dispatch"). */
const MCP_TRANSPORT_CODES: Record<number, number[]> = {
  400: [-32020, -32021, -32022, -32600, -32602, -32700],
  401: [-32600],
  403: [-32600],
  404: [-32601],
  405: [-32600, -32601],
  413: [-32600],
  415: [-32600],
  429: [-32029],
};

/** Refusals by the room of tasks/* and resources/read: JSON-RPC code on 200, and the room codes data.code may hold. */
const MCP_ROOM_CODES: Record<number, string[]> = {
  [-32602]: ['invalid_input', 'not_found'],
  [-32003]: ['forbidden'],
  [-32009]: ['conflict'],
  [-32013]: ['too_large'],
  [-32029]: ['limit_reached'],
  [-32030]: ['locked'],
  [-32050]: ['unavailable'],
};

/** The room's error codes and the one HTTP status each maps to (docs/reference.md, "Errors" and "The REST API"). */
export const PROBLEM_STATUS: Record<string, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  locked: 409,
  too_large: 413,
  unsupported_media_type: 415,
  limit_reached: 429,
};

const DOMAIN_CODES = new Set(Object.keys(PROBLEM_STATUS));

/** A REST route's success status, by method and the path without its query. */
function routeStatus(method: string, pathname: string): number | undefined {
  for (const route of restRoutes) {
    if (route.method !== method) continue;
    const pattern = new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i');
    if (pattern.test(pathname)) return route.status;
  }
  return undefined;
}

export interface Facts {
  /** The answer is a success that may have changed the database. */
  success: boolean;
}

/** The failure of a rule, with the request and answer it is about. */
export class RuleBroken extends Error {}

const isObject = (value: unknown): value is Record<string, any> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body of a request as JSON, when it parses. */
function requestJson(request: WireRequest): unknown {
  if (!request.body) return undefined;
  try {
    return JSON.parse(request.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function describeExchange(request: WireRequest, answer: WireAnswer | null): string {
  const body = request.body ? request.body.toString('utf8') : '';
  const target = request.path.length > 300 ? `${request.path.slice(0, 300)}…` : request.path;
  const shown = body.length > 600 ? `${body.slice(0, 600)}… (${request.body!.length} bytes)` : body;
  const lines = [
    `request: ${request.method} ${/^[\x21-\x7e]*$/.test(request.path) ? target : JSON.stringify(target)}`,
    ...request.headers.map(([name, value]) => `  ${name}: ${value.length > 200 ? `${value.slice(0, 200)}…` : value}`),
    ...(request.chunked ? ['  (body sent chunked)'] : []),
    `  ${JSON.stringify(shown)}`,
  ];
  if (answer) {
    lines.push(`answer: ${answer.status}${answer.stream ? ' (stream)' : ''}`);
    for (const [name, value] of Object.entries(answer.headers)) lines.push(`  ${name}: ${String(value)}`);
    lines.push(`  ${answer.body.length > 1500 ? `${answer.body.slice(0, 1500)}…` : answer.body}`);
  }
  return lines.join('\n');
}

/** Strings no body may hold: a stack trace or a path inside the machine. */
export function leakPatterns(internalPaths: string[]): RegExp[] {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [
    /\n\s+at \S+.*:\d+:\d+/,
    /\bat \S+ \(\S+:\d+:\d+\)/,
    /node_modules/,
    /file:\/\//,
    ...internalPaths.map((p) => new RegExp(escape(p))),
  ];
}

/**
 * Checks an answer against the rules every answer keeps and against the
 * case's expectation; throws RuleBroken naming the rule. Returns whether the
 * answer is a success (which may change the database).
 */
export function checkAnswer(request: WireRequest, answer: WireAnswer, expected: Expectation, leaks: RegExp[]): Facts {
  const broken = (rule: string): never => {
    throw new RuleBroken(`${rule}\n${describeExchange(request, answer)}`);
  };
  const { status, headers } = answer;
  const contentType = String(headers['content-type'] ?? '');
  // What the server routes by: the target before its query or fragment.
  const pathname = request.path.split(/[?#]/)[0]!;
  const onMcp = pathname === '/mcp';
  const nearMcp = /^\/mcp\/?$/i.test(pathname);
  const head = request.method === 'HEAD';

  if (status >= 500) broken(`a ${status}: the room must never answer 5xx`);
  if (status < 200) broken(`an informational status ${status} as the final answer`);
  for (const pattern of leaks)
    if (pattern.test(answer.body)) broken(`the body shows ${pattern} (a stack trace or an internal path)`);

  // What the answer is.
  let kind: 'stream' | 'notification' | 'options' | 'rpc-result' | 'rpc-error' | 'problem' | 'json' | 'html' | 'head';
  let rpcError: { code: number; message: string; data?: any } | undefined;
  let rpcResult: any;
  let problem: any;
  let json: { value: any } | undefined;
  const parsed = (): any => {
    try {
      json ??= { value: JSON.parse(answer.body) };
    } catch {
      broken('the body is not JSON');
    }
    return json!.value;
  };
  if (answer.stream) {
    kind = 'stream';
  } else if (status === 202) {
    kind = 'notification';
  } else if (request.method === 'OPTIONS' && status >= 200 && status < 300) {
    kind = 'options';
  } else if (head) {
    kind = 'head';
  } else if (
    (onMcp || nearMcp) &&
    /^application\/json\b/i.test(contentType) &&
    isObject(parsed()) &&
    'jsonrpc' in parsed()
  ) {
    const message = parsed();
    if (message.jsonrpc !== '2.0') broken('a JSON-RPC answer must say jsonrpc "2.0"');
    if ('error' in message) {
      kind = 'rpc-error';
      rpcError = message.error;
      if (!isObject(rpcError) || !Number.isInteger(rpcError.code) || typeof rpcError.message !== 'string') {
        broken('a JSON-RPC error must be {code: integer, message: string}');
      }
      if ('result' in message) broken('a JSON-RPC answer has both result and error');
    } else {
      kind = 'rpc-result';
      rpcResult = message.result;
      if (!isObject(rpcResult)) broken('a JSON-RPC result must be an object');
    }
    const sent = requestJson(request);
    const sentId = isObject(sent) ? sent.id : undefined;
    if ('id' in message && message.id !== sentId)
      broken(`the answer's id ${JSON.stringify(message.id)} is not the request's`);
    if (kind === 'rpc-result' && message.id === undefined) broken('a JSON-RPC result must carry the request id');
  } else if (/^application\/problem\+json\b/i.test(contentType)) {
    kind = 'problem';
    problem = parsed();
  } else if (/^application\/json\b/i.test(contentType)) {
    kind = 'json';
    parsed();
  } else if (/^text\/html\b/i.test(contentType) && request.method === 'GET' && pathname === '/docs') {
    kind = 'html';
  } else if (request.method === 'GET' && PAGE_FILES[pathname] !== undefined) {
    // The room's page: its files, each with its own type and the page's policy.
    kind = 'html';
    if (contentType !== PAGE_FILES[pathname]) broken(`${pathname} must be ${PAGE_FILES[pathname]}`);
    if (!/^default-src 'self';/.test(String(headers['content-security-policy'] ?? ''))) {
      broken(`${pathname} must carry the page's Content-Security-Policy`);
    }
  } else {
    return broken(
      `an answer that is neither JSON-RPC, problem+json, JSON, nor a stream (content-type ${contentType || 'none'})`,
    );
  }

  // The rules of each kind.
  const sent = requestJson(request);
  switch (kind) {
    case 'stream': {
      if (status !== 200) broken('a stream must answer 200');
      const listen = request.method === 'POST' && isObject(sent) && sent.method === 'subscriptions/listen';
      const legacy = request.method === 'GET' || request.method === 'HEAD';
      if (!nearMcp || !(listen || legacy)) broken('only subscriptions/listen and GET /mcp answer with a stream');
      if (listen && !head) {
        const data = /^data: (.*)$/m.exec(answer.body)?.[1];
        const first = data === undefined ? undefined : JSON.parse(data);
        if (first?.method !== 'notifications/subscriptions/acknowledged') {
          broken('a listen stream must open with notifications/subscriptions/acknowledged');
        }
        if (first.params?._meta?.['io.modelcontextprotocol/subscriptionId'] !== sent.id) {
          broken('the acknowledgement must carry the request id as its subscription id');
        }
      }
      break;
    }
    case 'notification':
      if (!nearMcp || request.method !== 'POST') broken('202 is for a notification POSTed to /mcp');
      if (!isObject(sent) || 'id' in sent) broken('202 answers only a notification (a message without id)');
      if (answer.body !== '') broken('202 must have no body');
      break;
    case 'options':
      if (!headers.allow) broken('an OPTIONS answer must list the methods in Allow');
      if (answer.body !== '') broken('an OPTIONS answer has no body');
      break;
    case 'head':
      if (status >= 400 && !/^application\/(problem\+)?json\b/i.test(contentType)) {
        broken('a refused HEAD must still say problem+json or JSON in its content type');
      }
      if (answer.body !== '') broken('a HEAD answer has no body');
      if (status === 405 && !headers.allow) broken('405 must list the allowed methods in Allow');
      break;
    case 'rpc-error': {
      const code = rpcError!.code;
      if (status === 200) {
        const roomCodes = MCP_ROOM_CODES[code];
        if (!roomCodes) broken(`JSON-RPC code ${code} is not one the room answers on 200`);
        const dataCode = rpcError!.data?.code;
        if (dataCode !== undefined && !roomCodes!.includes(dataCode)) {
          broken(`data.code ${dataCode} does not agree with JSON-RPC code ${code}`);
        }
      } else {
        const codes = MCP_TRANSPORT_CODES[status];
        if (!codes) broken(`HTTP ${status} is not a status /mcp answers with`);
        if (!codes!.includes(code))
          broken(`HTTP ${status} with JSON-RPC code ${code}: the reference pairs ${status} with ${codes}`);
      }
      if (status === 401 && headers['www-authenticate'] !== 'Bearer') broken('401 must carry WWW-Authenticate: Bearer');
      if (status === 405 && !headers.allow) broken('405 must list the allowed methods in Allow');
      break;
    }
    case 'rpc-result':
      if (status !== 200) broken('a JSON-RPC result must answer 200');
      if (rpcResult.isError === true) {
        const error = rpcResult.structuredContent?.error;
        if (!DOMAIN_CODES.has(error?.code) || typeof error?.message !== 'string') {
          broken('a tool error must carry structuredContent.error {code, message} with a room code');
        }
      }
      break;
    case 'problem': {
      if (onMcp) broken('/mcp answers errors as JSON-RPC, not problem+json');
      if (!isObject(problem)) broken('a problem must be a JSON object');
      if (problem.status !== status) broken(`the problem's status ${problem.status} is not the HTTP status ${status}`);
      if (typeof problem.code !== 'string' || PROBLEM_STATUS[problem.code] === undefined) {
        broken(`the problem's code ${JSON.stringify(problem.code)} is not a room code`);
      }
      if (PROBLEM_STATUS[problem.code] !== status) {
        broken(`code ${problem.code} goes with HTTP ${PROBLEM_STATUS[problem.code]}, not ${status}`);
      }
      if (typeof problem.title !== 'string' || typeof problem.detail !== 'string' || typeof problem.type !== 'string') {
        broken('a problem must have type, title and detail');
      }
      if (status === 401 && headers['www-authenticate'] !== 'Bearer') broken('401 must carry WWW-Authenticate: Bearer');
      if (status === 405 && !headers.allow) broken('405 must list the allowed methods in Allow');
      break;
    }
    case 'json': {
      if (onMcp) broken('/mcp answers JSON-RPC only');
      if (status < 200 || status >= 300) broken(`an error answered ${status} as plain JSON, not problem+json`);
      const documented = routeStatus(request.method, pathname);
      const known = documented !== undefined || /^\/openapi\.json\/?$/i.test(pathname);
      if (!known) broken('a success on a path that is no route');
      if (documented !== undefined && status !== documented)
        broken(`the route answers ${documented} on success, not ${status}`);
      break;
    }
    case 'html':
      if (status !== 200) broken(`${pathname} answers 200`);
      break;
  }

  const toolError = kind === 'rpc-result' && rpcResult.isError === true;
  const isSuccess =
    (kind === 'rpc-result' && !toolError) ||
    kind === 'json' ||
    kind === 'html' ||
    (kind === 'head' && status < 300) ||
    kind === 'options';
  const refused = kind === 'rpc-error' || kind === 'problem' || toolError || (kind === 'head' && status >= 400);

  // What the case expects.
  switch (expected.is) {
    case 'any':
      if (expected.notStatus?.includes(status)) broken(`expected anything but ${expected.notStatus.join(' or ')}`);
      if (expected.notDetail && expected.notDetail.test(problem?.detail ?? rpcError?.message ?? '')) {
        broken(`expected no refusal saying ${expected.notDetail}`);
      }
      break;
    case 'refused':
      if (!refused) broken('expected a refusal');
      break;
    case 'answered':
      if (status !== 200 || (kind !== 'rpc-result' && kind !== 'rpc-error')) {
        broken('expected 200 with a JSON-RPC result or a refusal by the room');
      }
      if (toolError && expected.notToolCode?.includes(rpcResult.structuredContent.error.code)) {
        broken(`expected no tool error ${rpcResult.structuredContent.error.code}`);
      }
      break;
    case 'rpc':
      if (kind !== 'rpc-error' || status !== expected.status || !expected.codes.includes(rpcError!.code)) {
        broken(`expected HTTP ${expected.status} with JSON-RPC error ${expected.codes.join(' or ')}`);
      }
      break;
    case 'problem':
      if (kind === 'head') {
        if (status !== expected.status) broken(`expected HTTP ${expected.status}`);
        break;
      }
      if (kind !== 'problem' || status !== expected.status || problem.code !== expected.code) {
        broken(`expected HTTP ${expected.status} problem+json with code ${expected.code}`);
      }
      if (expected.detail && !expected.detail.test(problem.detail))
        broken(`expected a detail matching ${expected.detail}`);
      break;
    case 'problem-of':
      if (kind !== 'problem' || !expected.pairs.some(([s, c]) => s === status && c === problem.code)) {
        broken(`expected a problem+json among ${expected.pairs.map(([s, c]) => `${s} ${c}`).join(', ')}`);
      }
      break;
    case 'tool-error':
      if (!toolError || rpcResult.structuredContent.error.code !== expected.code) {
        broken(`expected a tool result with isError and code ${expected.code}`);
      }
      break;
    case 'notification':
      if (kind !== 'notification') broken('expected 202 with no body');
      break;
    case 'ok':
      if (!isSuccess) broken('expected a success');
      break;
    case 'stream':
      if (kind !== 'stream') broken('expected a stream');
      break;
  }
  return { success: isSuccess };
}
