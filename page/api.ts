// The page's only way to the room: the REST routes (through openapi-fetch,
// typed by the generated OpenAPI paths) and the MCP methods every client
// uses, with the session token it was opened with. Nothing here is private
// to the page.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/openapi-types.js';

export const PROTOCOL_VERSION = '2026-07-28';

/**
 * Where the room is: its page's script is served at ROOT/page/room.js, so
 * the room's routes are beside the script's folder, wherever a proxy put
 * the room (ce serve --base-path) and whatever address the page has.
 */
const ROOM_ROOT = new URL('../', import.meta.url);
export const MCP_URL = new URL('mcp', ROOM_ROOT).href;

/** A refusal from the room: its HTTP status, the room's code and its message. */
export class RoomError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RoomError';
  }
}

/** The session's token was not accepted (mistyped, expired, revoked, or its participant removed). */
export const isSignedOut = (error: unknown): boolean => error instanceof RoomError && error.status === 401;

/** What a call of the typed client resolves to: its data, or the room's problem. */
type Answer<D> = { data: D; error?: never; response: Response } | { data?: never; error: unknown; response: Response };

export class RoomApi {
  private nextId = 1;
  /** The room's REST routes, typed from the OpenAPI document (generated/openapi-types.ts). */
  readonly client: Client<paths>;

  constructor(private readonly token: string) {
    this.client = createClient<paths>({
      baseUrl: ROOM_ROOT.href.replace(/\/$/, ''),
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      cache: 'no-store',
    });
  }

  /**
   * One REST call through the typed client (`api.rest((room) => room.GET('/workspace/session'))`):
   * its data; a problem+json answer, or none, becomes a RoomError.
   */
  async rest<D>(call: (client: Client<paths>) => Promise<Answer<D>>): Promise<Exclude<D, undefined>> {
    let answer: Answer<D>;
    try {
      answer = await call(this.client);
    } catch (error) {
      if (error instanceof SyntaxError)
        throw new RoomError(0, 'bad_answer', 'the room answered with something not JSON');
      throw new RoomError(0, 'unreachable', 'the room does not answer; it may be restarting');
    }
    const { response } = answer;
    if (answer.error !== undefined || !response.ok) {
      const problem = (answer.error ?? {}) as { code?: string; detail?: string; title?: string };
      throw new RoomError(
        response.status,
        problem.code ?? 'error',
        problem.detail ?? problem.title ?? `HTTP ${response.status}`,
      );
    }
    return answer.data as Exclude<D, undefined>;
  }

  /** The headers and body of one MCP request (protocol 2026-07-28, stateless). */
  mcpRequest(method: string, params: Record<string, unknown>, signal?: AbortSignal): RequestInit {
    return {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': method,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: `page-${this.nextId++}`,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
            'io.modelcontextprotocol/clientCapabilities': {},
            // The room counts the page's streams apart by this name (PAGE_CLIENT_NAME in src/mcp/protocol.ts).
            'io.modelcontextprotocol/clientInfo': { name: 'commonroom-page', version: '0.1.0' },
          },
        },
      }),
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    };
  }

  /** One MCP request answered with JSON. */
  async mcp<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    let response: Response;
    try {
      response = await fetch(MCP_URL, this.mcpRequest(method, params));
    } catch {
      throw new RoomError(0, 'unreachable', 'the room does not answer; it may be restarting');
    }
    if (response.status === 401) throw new RoomError(401, 'unauthorized', 'the session was not accepted');
    const answer = (await response.json().catch(() => null)) as {
      result?: T;
      error?: { code: number; message: string };
    } | null;
    if (!answer || answer.error || answer.result === undefined) {
      throw new RoomError(response.status, 'mcp_error', answer?.error?.message ?? `MCP ${method} failed`);
    }
    return answer.result;
  }
}
