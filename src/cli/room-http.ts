// Requests to a room over HTTP or HTTPS, from ce on another machine and from
// the bridge. node's own http and https, so a private CA (--ca) can be
// trusted for one room without touching the process's trust store; one
// keep-alive agent per scheme and CA. The TLS stack is loaded at the first
// request to an https room: a command that sends none starts without it.
import http, { type IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** node's https and the trust store it starts from. */
interface TlsStack {
  https: typeof import('node:https');
  rootCertificates: readonly string[];
}

let tlsStack: Promise<TlsStack> | undefined;
const loadTls = (): Promise<TlsStack> =>
  (tlsStack ??= Promise.all([import('node:https'), import('node:tls')]).then(([https, { rootCertificates }]) => ({
    https,
    rootCertificates,
  })));

export interface RoomRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** A CA certificate (PEM) to trust for an https room, besides the system's. */
  ca?: Buffer;
  /** Trust exactly the certificate with this SHA-256 fingerprint (a room on this machine, by its runtime file). */
  pin?: string;
  signal?: AbortSignal;
}

/** A route of the room at `baseUrl`, under the path the room is served at (ce serve --base-path). */
export const routeUrl = (baseUrl: string, path: string): URL => new URL(`${baseUrl.replace(/\/$/, '')}${path}`);

const agents = new Map<string, http.Agent>();

function agentFor(url: URL, { ca, pin }: RoomRequest, tls: TlsStack | null): http.Agent {
  const key = `${url.protocol}|${ca ? ca.toString('base64') : ''}|${pin ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = !tls
      ? new http.Agent({ keepAlive: true })
      : new tls.https.Agent({
          keepAlive: true,
          ...(ca ? { ca: [...tls.rootCertificates, ca.toString()] } : {}),
          // A pinned certificate is trusted for what it is, whoever signed it and whatever names it holds.
          ...(pin
            ? {
                rejectUnauthorized: false,
                checkServerIdentity: () => undefined,
              }
            : {}),
        });
    agents.set(key, agent);
  }
  return agent;
}

/** The room showed another certificate than the one its runtime file pins. */
class NotPinned extends Error {
  readonly code = 'CERT_NOT_PINNED';
  constructor() {
    super('the room showed another certificate than the one it was started with');
  }
}

/**
 * No connection to the room was made (refused, no route, a certificate not
 * trusted, ...): not a byte of the request reached it, so nothing was done.
 * Any other failure comes once the request may have been received.
 */
export class RoomNotReached extends Error {
  readonly code: string | undefined;
  constructor(readonly reason: unknown) {
    super((reason as Error).message);
    this.name = 'RoomNotReached';
    this.code = failureCode(reason);
  }
}

/** TLS verification codes that mean the room's certificate chain is not one ce trusts. */
const UNTRUSTED_CERTIFICATE = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
]);

/** Why no connection was made, said so a person can act on it; null when it is not the room's certificate. */
export function certificateTrouble(error: RoomNotReached): string | null {
  const code = error.code ?? '';
  if (UNTRUSTED_CERTIFICATE.has(code)) {
    return `its certificate is not signed by a CA ce trusts (${code}); give the room's CA certificate with --ca FILE`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `its certificate is not for this address (${code})`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `its certificate is not valid now (${code})`;
  if (code === 'CERT_NOT_PINNED') return error.message;
  return null;
}

/** Sends one request; resolves with the response once its head arrives (its body is still to be read). */
export async function sendToRoom(url: URL, request: RoomRequest): Promise<IncomingMessage> {
  const secure = url.protocol === 'https:';
  const tls = secure ? await loadTls() : null;
  const send = tls ? tls.https.request : http.request;
  return new Promise((resolve, reject) => {
    const outgoing = send(url, {
      method: request.method,
      headers: request.headers,
      agent: agentFor(url, request, tls),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    // The request is written once the socket is connected (for https, past the handshake, and with a pinned
    // certificate, once it is the one pinned); a kept-alive one already is.
    let connected = false;
    outgoing.once('socket', (socket) => {
      const ready = () => {
        if (request.pin && (socket as TLSSocket).getPeerCertificate().fingerprint256 !== request.pin) {
          outgoing.destroy(new NotPinned());
          return;
        }
        connected = true;
      };
      if (!socket.connecting) ready();
      else socket.once(secure ? 'secureConnect' : 'connect', ready);
    });
    outgoing.once('response', resolve);
    outgoing.once('error', (error) => reject(connected ? error : new RoomNotReached(error)));
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
