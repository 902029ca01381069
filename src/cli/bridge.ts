// ce bridge: a stdio MCP server (the 2026-07-28 stdio binding: one JSON-RPC
// message per line on stdin and stdout, request metadata inline in _meta)
// that forwards every message to the room's Streamable HTTP endpoint. It
// keeps nothing of its own: the one room process answers. Only MCP messages
// go to stdout; anything for a person goes to stderr.
import { createInterface } from 'node:readline';
import { createParser } from 'eventsource-parser';
import { OutsideJsonError, parseOutsideJson } from '../outside-json.js';
import { bodyText, certificateTrouble, failureCode, RoomNotReached, sendToRoom } from './room-http.js';
import type { RoomRequest } from './room-http.js';

/** Where to send, and as whom: worked out again for every request (a local room may have restarted elsewhere). */
export interface BridgeTarget {
  url: URL;
  headers: Record<string, string>;
  trust?: Pick<RoomRequest, 'ca' | 'pin'>; // --ca, or the certificate a room on this machine serves with TLS
}

type RequestId = string | number;
type Message = Record<string, unknown> & { method?: unknown; id?: unknown; params?: unknown };

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
/** The param each method names itself by in Mcp-Name (the HTTP binding). */
const NAME_PARAM: Record<string, string> = {
  'tools/call': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const ID_RULE = 'id must be a string or an integer from -(2^53 - 1) to 2^53 - 1'; // past it, parsed, not the id sent
const isId = (value: unknown): value is RequestId =>
  typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));

/** A header value as the HTTP binding carries it: as is when it is plain ASCII, Base64-wrapped otherwise. */
const headerValue = (value: string): string =>
  /^[\x20-\x7e]*$/.test(value) && value.trim() === value
    ? value
    : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** The MCP headers the HTTP binding derives from a message. */
function mcpHeaders(message: Message): Record<string, string> {
  const method = String(message.method);
  const params = isObject(message.params) ? message.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  const headers: Record<string, string> = { 'Mcp-Method': headerValue(method) };
  if (typeof meta[PROTOCOL_VERSION_META] === 'string') {
    headers['MCP-Protocol-Version'] = headerValue(meta[PROTOCOL_VERSION_META] as string);
  }
  const nameParam = NAME_PARAM[method];
  if (nameParam && typeof params[nameParam] === 'string')
    headers['Mcp-Name'] = headerValue(params[nameParam] as string);
  return headers;
}

/** How long answers on their way may still come once stdin has closed: the bridge exits within a second. */
const CLOSING_GRACE_MS = 800;

export class Bridge {
  /** Requests on their way, by id: a cancel aborts one, closing stdin all. */
  private readonly open = new Map<RequestId, AbortController>();
  /** Every forward not yet settled, notifications included. */
  private readonly pending = new Set<Promise<void>>();
  /** The requests answered with a stream (listens): they end only when cancelled. */
  private readonly streaming = new Set<RequestId>();

  constructor(
    private readonly target: () => BridgeTarget,
    private readonly write: (line: string) => void,
    private readonly log: (message: string) => void,
  ) {}

  private send(message: unknown): void {
    this.write(JSON.stringify(message));
  }

  private error(id: RequestId | null, code: number, message: string, data?: unknown): void {
    this.send({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });
  }

  /** One line of stdin. Never throws: a bad line gets the error the JSON-RPC spec gives it. */
  handle(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      // The room judges depth and Unicode (and answers with this line's id): the bridge reads id and method.
      message = parseOutsideJson(line, 'the message', { judge: false });
    } catch (error) {
      const text = error instanceof OutsideJsonError ? error.message : 'the message is not valid JSON';
      return this.error(null, -32700, text);
    }
    if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
      // A response from the client: this server sends no requests, so there is nothing to answer.
      if (isObject(message) && ('result' in message || 'error' in message)) return;
      const id = isObject(message) && isId(message.id) ? message.id : null;
      return this.error(id, -32600, 'not a JSON-RPC 2.0 request or notification');
    }
    if (message.id === undefined) {
      if (message.method === 'notifications/cancelled') return this.cancelled(message);
      return this.track(this.forward(message, line, null));
    }
    if (!isId(message.id)) return this.error(null, -32600, ID_RULE);
    this.track(this.forward(message, line, message.id));
  }

  private track(forwarding: Promise<void>): void {
    this.pending.add(forwarding);
    void forwarding.finally(() => this.pending.delete(forwarding));
  }

  /**
   * notifications/cancelled for a request on its way (a listen, say) ends
   * it here: closing its HTTP request is how the room learns of it. It is
   * not passed on: the room matches a cancel by session and request id, so
   * it could end another connection's request with the same id (a second
   * bridge of the same participant listening as "listen:0" too).
   */
  private cancelled(message: Message): void {
    const requestId = isObject(message.params) ? message.params.requestId : undefined;
    if (isId(requestId)) this.open.get(requestId)?.abort();
  }

  /** Sends the line as it came (not serialized again: a deeply nested message could overflow the stack here). */
  private async forward(message: Message, line: string, id: RequestId | null): Promise<void> {
    let target: BridgeTarget;
    try {
      target = this.target();
    } catch (error) {
      if (id !== null) this.error(id, -32603, (error as Error).message);
      return;
    }
    const abort = new AbortController();
    if (id !== null) this.open.set(id, abort);
    try {
      const response = await sendToRoom(target.url, {
        method: 'POST',
        headers: {
          ...target.headers,
          ...mcpHeaders(message),
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
        body: line,
        ...target.trust,
        signal: abort.signal,
      });
      if (id === null) {
        response.resume(); // a notification: 202, nothing to pass on
        return;
      }
      const type = String(response.headers['content-type'] ?? '');
      if (type.startsWith('text/event-stream')) {
        this.streaming.add(id);
        await this.stream(response, id);
      } else this.answer(id, response.statusCode ?? 0, type, await bodyText(response));
    } catch (error) {
      if (id === null || abort.signal.aborted) return; // cancelled by the client, or stdin closed
      const code = failureCode(error);
      const where = target.url.origin;
      const untrusted = error instanceof RoomNotReached ? certificateTrouble(error) : null;
      if (untrusted !== null) {
        this.error(id, -32603, `the room at ${where} was not reached: ${untrusted}; nothing was sent`, {
          reason: code ?? 'certificate',
        });
      } else if (error instanceof RoomNotReached) {
        this.error(
          id,
          -32603,
          `the room at ${where} did not take the request (${code ?? (error as Error).message}); it may be stopped or restarting, and nothing was done: send it again`,
          { reason: code ?? 'unreachable' },
        );
      } else {
        this.error(
          id,
          -32603,
          `the connection to the room at ${where} was lost before it answered (${code ?? (error as Error).message}); the request may or may not have been carried out`,
          { reason: code ?? 'connection_lost' },
        );
      }
    } finally {
      if (id !== null) {
        this.open.delete(id);
        this.streaming.delete(id);
      }
    }
  }

  /** A JSON answer goes back as it is, with the request's id when the room could not name it. */
  private answer(id: RequestId, status: number, type: string, text: string): void {
    let body: unknown;
    try {
      body = type.startsWith('application/json') ? parseOutsideJson(text, 'the room answer') : undefined;
    } catch {
      body = undefined;
    }
    if (isObject(body) && ('result' in body || 'error' in body)) {
      this.send({ ...body, jsonrpc: '2.0', id: isId(body.id) ? body.id : id });
      return;
    }
    this.error(id, -32603, `the room answered HTTP ${status} with no JSON-RPC message`);
  }

  /** A listen (or any streamed answer): every frame goes out as a line as it comes. */
  private async stream(response: AsyncIterable<unknown>, id: RequestId): Promise<void> {
    let answered = false;
    const parser = createParser({
      onEvent: (event) => {
        let frame: unknown;
        try {
          frame = parseOutsideJson(event.data, 'a frame of the room');
        } catch {
          return this.log(`ce bridge: skipped a frame that is not JSON`);
        }
        if (isObject(frame) && frame.id === id && ('result' in frame || 'error' in frame)) answered = true;
        this.send(frame);
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of response) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
    if (!answered) this.error(id, -32603, 'the room ended the stream without its final answer (it may have stopped)');
  }

  /**
   * stdin closed: the host is done. Streams end now; answers already on
   * their way get a moment to arrive, then whatever is left is abandoned.
   */
  async close(): Promise<void> {
    for (const id of this.streaming) this.open.get(id)?.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.pending]),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSING_GRACE_MS))),
    ]);
    clearTimeout(timer);
    for (const abort of this.open.values()) abort.abort();
  }
}

/** Runs the bridge on this process's stdin and stdout until stdin closes. */
export function runBridge(target: () => BridgeTarget): Promise<void> {
  const bridge = new Bridge(
    target,
    (line) => process.stdout.write(`${line}\n`),
    (message) => process.stderr.write(`${message}\n`),
  );
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => bridge.handle(line));
  return new Promise((resolve) => {
    lines.once('close', () => {
      void bridge.close().then(() => {
        // Whatever was written reaches the host before the process goes.
        process.stdout.write('', () => resolve());
      });
    });
  });
}
