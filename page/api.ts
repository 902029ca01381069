// The page's only way to the room: the REST routes and MCP methods every
// client uses, with the session token it was opened with. Nothing here is
// private to the page.

export const PROTOCOL_VERSION = '2026-07-28';

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

export class RoomApi {
  private nextId = 1;

  constructor(private readonly token: string) {}

  /** One REST call: a JSON body in, the JSON answer out; a problem+json answer becomes a RoomError. */
  async rest<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        cache: 'no-store',
      });
    } catch {
      throw new RoomError(0, 'unreachable', 'the room does not answer; it may be restarting');
    }
    const text = await response.text();
    let answer: unknown = null;
    try {
      answer = text ? JSON.parse(text) : null;
    } catch {
      throw new RoomError(
        response.status,
        'bad_answer',
        `the room answered ${response.status} with something not JSON`,
      );
    }
    if (!response.ok) {
      const problem = (answer ?? {}) as { code?: string; detail?: string; title?: string };
      throw new RoomError(
        response.status,
        problem.code ?? 'error',
        problem.detail ?? problem.title ?? `HTTP ${response.status}`,
      );
    }
    return answer as T;
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
      response = await fetch('/mcp', this.mcpRequest(method, params));
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
