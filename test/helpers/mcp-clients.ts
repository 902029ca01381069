// The official MCP client packages (@modelcontextprotocol/client and
// @modelcontextprotocol/ext-tasks), unmodified, wired to a room over real
// HTTP. See CLIENT-INTEROP.md in the design folder for what they demand.
import {
  Client,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type FetchLike,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import type { JsonRpcResponse, RawClientDispatch, V2RequestFraming } from '@modelcontextprotocol/ext-tasks/client';
import { PROTOCOL_VERSION, TASKS } from './server.js';

/** One POST /mcp as the client sent it, and what came back when the answer was plain JSON. */
export interface RecordedRequest {
  /** The Mcp-Method header. */
  method: string | null;
  /** The Mcp-Name header. */
  name: string | null;
  body: { id?: string | number; method?: string; params?: Record<string, unknown> } | null;
  status: number | null;
  /** The JSON response body; undefined for SSE, 202 and failed fetches. */
  response?: unknown;
}

/**
 * A fetch for the transports that records every request and remembers the
 * ones still in flight, so a test can let fire-and-forget requests
 * (session.close() sends tasks/cancel without waiting) land before closing.
 */
export class RecordingFetch {
  readonly requests: RecordedRequest[] = [];
  private readonly inflight = new Set<Promise<unknown>>();

  readonly fetch: FetchLike = (url, init) => {
    const headers = new Headers(init?.headers);
    let body: RecordedRequest['body'] = null;
    try {
      body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    } catch {
      body = null;
    }
    const record: RecordedRequest = {
      method: headers.get('mcp-method'),
      name: headers.get('mcp-name'),
      body,
      status: null,
    };
    this.requests.push(record);
    const pending = (async () => {
      const response = await fetch(url, init);
      record.status = response.status;
      if (response.headers.get('content-type')?.startsWith('application/json')) {
        record.response = await response
          .clone()
          .json()
          .catch(() => undefined);
      }
      return response;
    })();
    const tracked = pending.catch(() => undefined);
    this.inflight.add(tracked);
    void tracked.finally(() => this.inflight.delete(tracked));
    return pending;
  };

  /** Requests by JSON-RPC method (from the body; a listen's cancel notification carries no Mcp-Method). */
  sent(method: string): RecordedRequest[] {
    return this.requests.filter((r) => r.body?.method === method);
  }

  /** Waits until every request started so far has its answer (or failed). */
  async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }
}

const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });

export function transportFor(url: string, token: string, recorder?: RecordingFetch): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: bearer(token),
    ...(recorder ? { fetch: recorder.fetch } : {}),
  });
}

export interface ConnectOptions {
  name: string;
  /** Declare the Tasks extension in the client's own capabilities (needed to listen for taskIds). */
  tasks?: boolean;
  recorder?: RecordingFetch;
  /** Sees every message the transport delivers to the Client (the raw frames of listen streams included). */
  onInbound?: (message: JSONRPCMessage) => void;
}

export const clientInfo = (name: string) => ({ name, version: '1.0.0' });

/** A Client pinned to 2026-07-28 and connected (server/discover) with the participant's bearer token. */
export function connectClient(url: string, token: string, options: ConnectOptions): Promise<Client> {
  return connectClientOver(transportFor(url, token, options.recorder), options);
}

/** A Client pinned to 2026-07-28, connected (server/discover) over any transport (HTTP, or stdio to ce bridge). */
export async function connectClientOver(
  transport: Transport,
  options: Omit<ConnectOptions, 'recorder'>,
): Promise<Client> {
  const client = new Client(clientInfo(options.name), {
    versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
    ...(options.tasks ? { capabilities: { extensions: { [TASKS]: {} } } } : {}),
  });
  await client.connect(transport);
  const { onInbound } = options;
  if (onInbound) {
    // A tap in front of the Client's own handler: the Client strips filter keys it does not know (taskIds).
    const deliver = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      onInbound(message);
      deliver?.(message);
    };
  }
  return client;
}

/** The _meta framing ext-tasks puts on the requests it sends through rawDispatch. */
export const v2Framing = (name: string): V2RequestFraming => ({
  protocolVersion: PROTOCOL_VERSION,
  clientInfo: clientInfo(name),
  clientCapabilities: { extensions: { [TASKS]: {} } },
});

export interface RawDispatcher {
  dispatch: RawClientDispatch;
  /** Sends `method` with the whole 2026-07-28 _meta envelope (declaring the Tasks extension unless told not to). */
  request(method: string, params?: Record<string, unknown>, options?: { tasks?: boolean }): Promise<JsonRpcResponse>;
  close(): Promise<void>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON-RPC error answered with a non-2xx, non-400 status is only in the HTTP error's text. */
function errorFromHttpFailure(error: unknown, id: string): JsonRpcResponse | undefined {
  if (!(error instanceof SdkHttpError) || typeof error.data.text !== 'string') return undefined;
  try {
    const body: unknown = JSON.parse(error.data.text);
    if (isObject(body) && body.id === id && isObject(body.error)) {
      return { kind: 'error', error: body.error as Extract<JsonRpcResponse, { kind: 'error' }>['error'] };
    }
  } catch {
    // not JSON: let the HTTP error through
  }
  return undefined;
}

/**
 * The raw request path ext-tasks needs for a 2026-07-28 server (the SDK
 * Client refuses `resultType: "task"`): a second StreamableHTTPClientTransport
 * that derives MCP-Protocol-Version, Mcp-Method and Mcp-Name from the body's
 * _meta, one POST per request, answers matched by id.
 */
export function createRawDispatcher(
  url: string,
  token: string,
  options: { name: string; recorder?: RecordingFetch },
): Promise<RawDispatcher> {
  return rawDispatcherOver(transportFor(url, token, options.recorder), options);
}

/**
 * The raw request path over any transport (HTTP, or stdio to ce bridge):
 * JSON-RPC requests with ids of its own, answers matched by id. A request
 * aborted by ext-tasks is cancelled with notifications/cancelled.
 */
export async function rawDispatcherOver(transport: Transport, options: { name: string }): Promise<RawDispatcher> {
  const pending = new Map<string | number, (response: JsonRpcResponse) => void>();
  transport.onmessage = (message: JSONRPCMessage) => {
    if (!('id' in message) || message.id === undefined || 'method' in message) return;
    const resolve = pending.get(message.id);
    if (!resolve) return;
    pending.delete(message.id);
    if ('error' in message) resolve({ kind: 'error', error: message.error as never });
    else resolve({ kind: 'result', result: message.result as never });
  };
  // Failures of send() are thrown to the caller below.
  transport.onerror = () => {};
  await transport.start();

  let next = 0;
  const dispatch: RawClientDispatch = async (request, dispatchOptions) => {
    if (!isObject(request)) throw new TypeError('a request must be an object');
    const id = `${options.name}-raw-${++next}`;
    const answered = new Promise<JsonRpcResponse>((resolve) => pending.set(id, resolve));
    const signal = dispatchOptions?.signal;
    try {
      await transport.send({ ...request, jsonrpc: '2.0', id } as JSONRPCMessage, {
        ...(signal ? { requestSignal: signal } : {}),
        ...(dispatchOptions?.context?.headers ? { headers: dispatchOptions.context.headers } : {}),
      });
    } catch (error) {
      pending.delete(id);
      const decoded = errorFromHttpFailure(error, id);
      if (decoded) return decoded;
      throw error;
    }
    if (!signal) return answered;
    // Over HTTP the aborted fetch ends the request; over stdio only a cancel notification does.
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const onAbort = () => {
        pending.delete(id);
        void transport
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } } as JSONRPCMessage)
          .catch(() => undefined);
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void answered.then((response) => {
        signal.removeEventListener('abort', onAbort);
        resolve(response);
      });
    });
  };

  const framing = v2Framing(options.name);
  return {
    dispatch,
    request(method, params = {}, { tasks = true } = {}) {
      return dispatch({
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': framing.protocolVersion,
            'io.modelcontextprotocol/clientInfo': framing.clientInfo,
            'io.modelcontextprotocol/clientCapabilities': tasks ? framing.clientCapabilities : {},
          },
        },
      } as never);
    },
    async close() {
      pending.clear();
      await transport.close();
    },
  };
}

/** The result of a raw response, or a failure that shows the JSON-RPC error. */
export function resultOf(response: JsonRpcResponse): Record<string, unknown> {
  if (response.kind === 'error') {
    throw new Error(`expected a result, got JSON-RPC error ${JSON.stringify(response.error)}`);
  }
  if (!isObject(response.result)) throw new Error(`expected an object result, got ${JSON.stringify(response.result)}`);
  return response.result;
}

/** Polls `check` until it returns a value (not undefined), failing after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
