import type { IncomingHttpHeaders } from 'node:http';
import { mismatch } from '../../mcp/server.js';

/** Standard Base64 (RFC 4648 §4), padding optional; Buffer.from alone also takes URL-safe letters and stray '='. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** Header values may be wrapped as `=?base64?...?=` (Streamable HTTP); compare the decoded value. */
export function decodeHeaderValue(value: string): string {
  const wrapped = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!wrapped) return value;
  const decoded = Buffer.from(wrapped[1]!, 'base64');
  // The round trip also refuses leftover bits a canonical encoder never writes ('YR==' for 'a').
  if (!BASE64.test(wrapped[1]!) || decoded.toString('base64').replace(/=+$/, '') !== wrapped[1]!.replace(/=+$/, '')) {
    throw mismatch('a header is not valid base64 inside =?base64?...?=');
  }
  return decoded.toString('utf8');
}

/** A header's value, decoded; read when a check asks for it. */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const single = Array.isArray(value) ? value[0] : value;
  return single === undefined ? undefined : decodeHeaderValue(single);
}
