// Raw HTTP for the fuzz suite: node:http sends the request target, header
// lines and body exactly as given (no URL normalization, a header given twice
// is sent twice), over one keep-alive connection reused from request to
// request. Every request has a deadline: no answer in time is a hang.
import http, { type IncomingHttpHeaders } from 'node:http';

export interface WireRequest {
  method: string;
  /** The request target as sent: dot segments and percent-escapes stay as they are. */
  path: string;
  /** Header lines in order; a name given twice is sent on two lines. */
  headers: [string, string][];
  body?: Buffer;
  /** Send the body in pieces with Transfer-Encoding: chunked instead of a Content-Length. */
  chunked?: boolean;
}

export interface WireAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body; for a stream, what arrived up to its first event (nothing for a stream that sends none first). */
  body: string;
  /** A text/event-stream answer, closed by the client once seen. */
  stream: boolean;
}

/** No answer before the deadline. */
export class HangError extends Error {}

const STREAM = /^text\/event-stream\b/i;

export class WireClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly url: URL;
  /** The request sent before the current one on this client, to name it when the connection misbehaves. */
  private previous = '(none)';

  constructor(
    baseUrl: string,
    private readonly deadlineMs: number,
  ) {
    this.url = new URL(baseUrl);
  }

  /**
   * Sends one request and reads its answer. A stream is read up to its first
   * event when `firstEvent` says one comes (subscriptions/listen sends its
   * acknowledgement at once), else only its head, and then closed.
   */
  async send(request: WireRequest, options: { firstEvent?: boolean } = {}): Promise<WireAnswer> {
    try {
      return await this.roundTrip(request, options.firstEvent ?? false);
    } finally {
      this.previous = `${request.method} ${request.path.slice(0, 200)}`;
    }
  }

  private roundTrip(request: WireRequest, firstEvent: boolean): Promise<WireAnswer> {
    return new Promise<WireAnswer>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        outcome();
      };
      const req = http.request({
        host: this.url.hostname,
        port: this.url.port,
        method: request.method,
        path: request.path,
        agent: this.agent,
      });
      const deadline = setTimeout(() => {
        finish(() =>
          reject(
            new HangError(
              `no answer within ${this.deadlineMs} ms to ${request.method} ${request.path.slice(0, 200)} ` +
                `(the request before it on this connection: ${this.previous})`,
            ),
          ),
        );
        req.destroy();
      }, this.deadlineMs);

      const byName = new Map<string, string[]>();
      for (const [name, value] of request.headers) {
        byName.set(name, [...(byName.get(name) ?? []), value]);
      }
      for (const [name, values] of byName) req.setHeader(name, values.length === 1 ? values[0]! : values);
      if (request.chunked) req.setHeader('transfer-encoding', 'chunked');
      else if (request.body !== undefined) req.setHeader('content-length', request.body.length);

      req.on('error', (error) => {
        // No retry, even on a reused connection: requests follow each other at once, so the server never
        // closes one as idle under the next, and a connection it left unusable must show.
        const failure = new Error(
          `${request.method} ${request.path.slice(0, 200)}: the connection failed before an answer: ${error.message} ` +
            `(the request before it on this connection: ${this.previous})`,
        );
        finish(() => reject(failure));
      });
      req.on('response', (res) => {
        const stream = STREAM.test(res.headers['content-type'] ?? '');
        let body = '';
        res.setEncoding('utf8');
        const answer = () => ({ status: res.statusCode ?? 0, headers: res.headers, body, stream });
        // Only a POST (subscriptions/listen) opens with an event; GET /mcp waits for changes.
        if (stream && (!firstEvent || request.method !== 'POST')) {
          finish(() => resolve(answer()));
          req.destroy();
          return;
        }
        res.on('data', (chunk: string) => {
          body += chunk;
          if (stream && body.includes('\n\n')) {
            finish(() => resolve(answer()));
            req.destroy();
          }
        });
        res.on('end', () => {
          finish(() => resolve(answer()));
          // Answered before the body was all sent (413): stop sending and drop the connection, as
          // HTTP clients do (RFC 9112 §9.5), rather than wait for a server that reads no more.
          if (!req.writableFinished) req.destroy();
        });
        res.on('error', (error) => finish(() => reject(error)));
      });

      if (request.body === undefined) {
        req.end();
      } else if (request.chunked) {
        const piece = 64 * 1024;
        for (let at = 0; at < request.body.length; at += piece) req.write(request.body.subarray(at, at + piece));
        req.end();
      } else {
        req.end(request.body);
      }
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
