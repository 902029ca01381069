// How ce reaches a room by its address (--url), from this machine or
// another: the room's endpoint, the session token, a private CA.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { failureCode } from './room-http.js';
import { terminal } from './terminal.js';

/** The token a remote door is given: CE_TOKEN, or the first line of --token-file; never a flag of its own (ps shows flags). */
export function sessionToken(tokenFile: string | undefined): string {
  const token = givenToken(tokenFile);
  // It travels in the Authorization header: anything but visible ASCII would be refused there, or changed.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new InvalidArgumentError(
      `the session token ${tokenFile !== undefined ? `in ${tokenFile}` : 'in CE_TOKEN'} holds characters no session token has (spaces, or beyond ASCII)`,
    );
  }
  return token;
}

function givenToken(tokenFile: string | undefined): string {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(tokenFile, 'utf8');
    } catch (error) {
      throw new InvalidArgumentError(`--token-file: cannot read ${tokenFile} (${failureCode(error) ?? error})`);
    }
    const token = text.split('\n', 1)[0]!.trim();
    if (token === '') throw new InvalidArgumentError(`--token-file: ${tokenFile} holds no token`);
    return token;
  }
  const token = terminal().env.CE_TOKEN?.trim();
  if (!token) {
    throw new InvalidArgumentError('a session token is needed: set CE_TOKEN, or give --token-file FILE');
  }
  return token;
}

/** A CA certificate file (--ca), read once. */
export function caFile(file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined;
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (error) {
    throw new InvalidArgumentError(`--ca: cannot read ${file} (${failureCode(error) ?? error})`);
  }
  try {
    new X509Certificate(pem);
  } catch {
    throw new InvalidArgumentError(`--ca: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return pem;
}

/** The room's MCP endpoint from what a person types: a base URL, or the /mcp URL itself. */
export function mcpEndpointOf(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError(
      `--url must be the room's address, such as http://host:7420 (got ${JSON.stringify(text)})`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError(`--url must be an http or https address (got ${JSON.stringify(text)})`);
  }
  return new URL(url.pathname.endsWith('/mcp') ? url.pathname : `${url.pathname.replace(/\/$/, '')}/mcp`, url);
}

/** The room's base address from what a person types: the base URL, or its /mcp or /workspace URL. */
export function restBaseOf(text: string): URL {
  const mcp = mcpEndpointOf(text);
  return new URL(mcp.pathname.replace(/\/mcp$/, '/'), mcp);
}
