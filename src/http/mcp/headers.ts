import type { IncomingHttpHeaders } from 'node:http';
import { McpError, RPC } from './protocol.js';

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

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const single = Array.isArray(value) ? value[0] : value;
  return single === undefined ? undefined : decodeHeaderValue(single);
}

export const mismatch = (message: string): McpError => new McpError(400, RPC.headerMismatch, message);

/** Mcp-Method must name the body's method; Mcp-Name the param the method names itself by. */
export function checkRoutingHeaders(
  headers: IncomingHttpHeaders,
  method: string,
  nameParam: string | null,
  params: Record<string, unknown>,
): void {
  const mcpMethod = header(headers, 'mcp-method');
  if (mcpMethod === undefined) throw mismatch('the Mcp-Method header is required');
  if (mcpMethod !== method)
    throw mismatch(`the Mcp-Method header (${mcpMethod}) does not match the body's method (${method})`);
  if (nameParam === null) return;
  const mcpName = header(headers, 'mcp-name');
  if (mcpName === undefined) throw mismatch(`the Mcp-Name header is required for ${method}`);
  if (mcpName !== params[nameParam]) {
    throw mismatch(`the Mcp-Name header does not match params.${nameParam}`);
  }
}
