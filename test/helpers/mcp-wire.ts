// Raw-HTTP helpers for the MCP endpoint tests: plain POSTs with hand-made
// headers and bodies, SSE streams read with eventsource-parser, and the few
// tool calls a handoff needs. Built on rpc/rpcRequest from ./server.ts.
import { createParser } from 'eventsource-parser';
import { expect } from 'vitest';
import { PROTOCOL_VERSION, rpc, rpcRequest, TASKS, type RpcOptions, type TestServer } from './server.js';

/** A JSON value as the tests read it from the wire. */
export type Wire = any;

export type Who = keyof TestServer['tokens'];

export const META_PROTOCOL = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
export const META_HANDOFF = 'commonroom/handoff_id';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  body: Wire;
}

/** The `_meta` a well-formed 2026-07-28 request carries. */
export function requestMeta(tasks = false): Record<string, unknown> {
  return {
    [META_PROTOCOL]: PROTOCOL_VERSION,
    [META_CAPABILITIES]: tasks ? { extensions: { [TASKS]: {} } } : {},
    [META_CLIENT]: { name: 'raw-fetch-test', version: '1.0.0' },
  };
}

/** The headers a well-formed POST carries (no Mcp-Name); entries of `extra` override, null removes. */
export function mcpHeaders(method: string, token?: string, extra: Record<string, string | null> = {}) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  for (const [key, value] of Object.entries(extra)) {
    if (value === null) delete headers[key];
    else headers[key] = value;
  }
  return headers;
}

/** POSTs exactly the body and headers given; the body is parsed when it is JSON. */
export async function post(url: string, body: unknown, headers: Record<string, string>): Promise<RawResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Wire = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** `=?base64?...?=`, the wrapped form a header value may take (Streamable HTTP). */
export const base64Header = (value: string): string => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

// ---------------------------------------------------------------------------
// Server-sent events

export interface SseClient {
  response: Response;
  /** The JSON-RPC messages received so far, in order. */
  frames: Wire[];
  /** Comment lines (keep-alives). */
  comments: string[];
  /** Settles when the response body ends (the server closed it, or the client aborted). */
  ended: Promise<void>;
  readonly done: boolean;
  abort(): void;
}

/** Opens a request whose answer is an SSE stream and reads it in the background. */
export async function openSse(url: string, init: RequestInit, fetchVia: typeof fetch = fetch): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetchVia(url, { ...init, signal: controller.signal });
  const frames: Wire[] = [];
  const comments: string[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (event) => frames.push(JSON.parse(event.data)),
    onComment: (comment) => comments.push(comment),
  });
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // Aborted by the client: the stream just ends.
    } finally {
      done = true;
    }
  })();
  return {
    response,
    frames,
    comments,
    ended,
    get done() {
      return done;
    },
    abort: () => controller.abort(),
  };
}

/** subscriptions/listen as one long-lived POST. */
export function listen(
  s: TestServer,
  who: Who,
  notifications: Record<string, unknown>,
  options: RpcOptions = {},
): Promise<SseClient> {
  const { url, init } = rpcRequest(
    s.http.mcpUrl,
    'subscriptions/listen',
    { notifications },
    {
      token: s.tokens[who],
      ...options,
    },
  );
  return openSse(url, init);
}

/** Waits (generously) until a frame matching `predicate` arrives, and returns it. */
export async function nextFrame(client: SseClient, predicate: (frame: Wire) => boolean, what: string): Promise<Wire> {
  await expect
    .poll(() => client.frames.some(predicate), { timeout: 15_000, interval: 20, message: `waiting for ${what}` })
    .toBe(true);
  return client.frames.find(predicate);
}

export const isMethod =
  (method: string) =>
  (frame: Wire): boolean =>
    frame?.method === method;

// ---------------------------------------------------------------------------
// Tool calls

export function callTool(
  s: TestServer,
  who: Who,
  name: string,
  args: unknown,
  options: RpcOptions = {},
): Promise<RawResponse> {
  return rpc(s.http.mcpUrl, 'tools/call', { name, arguments: args }, { token: s.tokens[who], ...options }).then(
    (r) => ({ ...r, text: JSON.stringify(r.body) }),
  );
}

/** A tool call that must succeed: returns its structuredContent. */
export async function toolOk(s: TestServer, who: Who, name: string, args: unknown): Promise<Wire> {
  const r = await callTool(s, who, name, args);
  expect(r.status, `${name} by ${who}: ${r.text}`).toBe(200);
  expect(r.body.result?.isError, `${name} by ${who}: ${r.text}`).not.toBe(true);
  return r.body.result.structuredContent;
}

export function taskRpc(
  s: TestServer,
  who: Who,
  method: 'tasks/get' | 'tasks/update' | 'tasks/cancel',
  params: Record<string, unknown>,
  options: RpcOptions = {},
) {
  return rpc(s.http.mcpUrl, method, params, { token: s.tokens[who], tasks: true, ...options });
}

/** handoff_create without the extension: the handoff and task ids. */
export async function createHandoff(
  s: TestServer,
  who: Who = 'alice',
  args: Record<string, unknown> = { summary: 'Write the introduction', assignee: 'bob' },
): Promise<{ handoffId: string; taskId: string }> {
  const out = await toolOk(s, who, 'handoff_create', args);
  return { handoffId: out.handoff.handoff_id, taskId: out.handoff.task_id };
}

export const textResult = (text: string) => ({ content: [{ type: 'text', text }] });
