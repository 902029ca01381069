import type { Capability } from '../../generated/types.js';
import { createSession, LOCAL_OPERATOR, syncArtifact } from './engine.js';
import { serveRoom, type RoomServer, type ServeOptions } from '../../src/http/server.js';
import { makeRoom, type TestRoom } from './room.js';
import { suiteLogger } from './suite-logs.js';

export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

export interface TestServer extends TestRoom {
  http: RoomServer;
  /** alice, bob: read, write; carol: read; dave: read, approve; admin: dave with admin and read. */
  tokens: Record<'alice' | 'bob' | 'carol' | 'dave' | 'admin', string>;
  stop(): Promise<void>;
}

/** A room served over real HTTP on 127.0.0.1, with a session for each participant. */
export async function startTestServer(options: ServeOptions = {}): Promise<TestServer> {
  const t = makeRoom();
  syncArtifact(t.room);
  const token = (participant: string, capabilities: [Capability, ...Capability[]]) =>
    createSession(t.room, LOCAL_OPERATOR, { participant, capabilities }).token;
  const tokens = {
    alice: token('alice', ['read', 'write']),
    bob: token('bob', ['read', 'write']),
    carol: token('carol', ['read']),
    dave: token('dave', ['read', 'approve']),
    admin: token('dave', ['read', 'admin']),
  };
  const logger = suiteLogger();
  const http = await serveRoom(t.room, { ...(logger ? { logger } : {}), ...options });
  return {
    ...t,
    http,
    tokens,
    async stop() {
      await http.close();
      t.close();
    },
  };
}

export interface RpcOptions {
  token?: string | null;
  tasks?: boolean;
  id?: string | number;
  headers?: Record<string, string | null>;
  meta?: Record<string, unknown>;
}

/** The name a method routes by (Mcp-Name). */
const nameParam: Record<string, string> = {
  'tools/call': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** Builds a well-formed MCP 2026-07-28 POST; `headers` entries override (null removes). */
export function rpcRequest(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: RpcOptions = {},
) {
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': options.tasks ? { extensions: { [TASKS]: {} } } : {},
        'io.modelcontextprotocol/clientInfo': { name: 'raw-fetch-test', version: '1.0.0' },
        ...options.meta,
      },
    },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
  };
  const name = nameParam[method];
  if (name && typeof params[name] === 'string') headers['mcp-name'] = params[name] as string;
  if (options.token !== null && options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[key];
    else headers[key] = value;
  }
  return { url, init: { method: 'POST', headers, body: JSON.stringify(body) } };
}

export async function rpc(url: string, method: string, params: Record<string, unknown> = {}, options: RpcOptions = {}) {
  const { init } = rpcRequest(url, method, params, options);
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}
