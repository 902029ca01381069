// Answers written on node:http as Koa would have written them: the status,
// the answer's own headers, its type and length, and the text in one end().
// A HEAD request gets the headers alone (node leaves the body out).
//
// The headers are handed to node as one array (writeHead's raw form), the
// headers every answer carries first (openAnswer). Set one by one with
// setHeader, each was checked and stored by name, then read back and checked
// again as node wrote them: a tenth of a bare server's CPU for an answer of
// five headers.
import type { ServerResponse } from 'node:http';

const OPENING = Symbol('the headers this answer begins with');
type Opened = ServerResponse & { [OPENING]?: string[] };

/** The headers (name, value, name, value…) `res` begins with, whatever it answers (node-answer.ts). */
export function openAnswer(res: ServerResponse, headers: string[]): void {
  (res as Opened)[OPENING] = headers;
}

/** A stream's answer: its opening headers set, for the stream's own writeHead to add to (and no longer kept twice). */
export function setOpeningHeaders(res: ServerResponse): void {
  const opening = (res as Opened)[OPENING] ?? [];
  for (let i = 0; i < opening.length; i += 2) res.setHeader(opening[i]!, opening[i + 1]!);
  (res as Opened)[OPENING] = undefined;
}

export function sendText(
  res: ServerResponse,
  status: number,
  type: string,
  text: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const block = [...((res as Opened)[OPENING] ?? [])];
  for (const name of Object.keys(headers)) block.push(name, headers[name]!);
  block.push('Content-Type', type, 'Content-Length', String(Buffer.byteLength(text)));
  res.writeHead(status, block);
  res.end(text);
}

/** `body` as JSON: Koa's type for it, and its text as JSON.stringify writes it. */
export const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Readonly<Record<string, string>>,
): void => sendText(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
