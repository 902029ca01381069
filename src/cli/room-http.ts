// Requests to a room over HTTP or HTTPS, from ce on another machine and from
// the bridge. node's own http and https, so a private CA (--ca) can be
// trusted for one room without touching the process's trust store; one
// keep-alive agent per scheme and CA.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';

export interface RoomRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** A CA certificate (PEM) to trust for an https room, besides the system's. */
  ca?: Buffer;
  signal?: AbortSignal;
}

const agents = new Map<string, http.Agent>();

function agentFor(url: URL, ca: Buffer | undefined): http.Agent {
  const key = `${url.protocol}${ca ? ca.toString('base64') : ''}`;
  let agent = agents.get(key);
  if (!agent) {
    agent =
      url.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, ...(ca ? { ca: [...rootCertificates, ca.toString()] } : {}) })
        : new http.Agent({ keepAlive: true });
    agents.set(key, agent);
  }
  return agent;
}

/** Sends one request; resolves with the response once its head arrives (its body is still to be read). */
export function sendToRoom(url: URL, request: RoomRequest): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const outgoing = send(url, {
      method: request.method,
      headers: request.headers,
      agent: agentFor(url, request.ca),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end(request.body);
  });
}

/** A response's whole body as text. */
export async function bodyText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The errno-style code of a failed request (ECONNREFUSED, CERT_HAS_EXPIRED, ...), when it has one. */
export const failureCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
};
