// Answers written on node:http as Koa would have written them: the status,
// the answer's own headers, its type and length, and the text in one end().
// A HEAD request gets the headers alone (node leaves the body out).
import type { ServerResponse } from 'node:http';

export function sendText(
  res: ServerResponse,
  status: number,
  type: string,
  text: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.statusCode = status;
  for (const name of Object.keys(headers)) res.setHeader(name, headers[name]!);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** `body` as JSON: Koa's type for it, and its text as JSON.stringify writes it. */
export const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Readonly<Record<string, string>>,
): void => sendText(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
