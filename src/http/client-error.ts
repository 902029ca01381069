import { maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';

/** A refusal in the room's problem+json, written on the raw connection; the connection closes after it. */
function problem(status: 400 | 431, detail: string, head = false): string {
  const [title, code] =
    status === 400 ? ['Bad Request', 'invalid_input'] : ['Request Header Fields Too Large', 'too_large'];
  const body = JSON.stringify({ type: 'about:blank', title, status, detail, code });
  return (
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`
  );
}

/**
 * A request Node's HTTP parser refuses (a byte not allowed in the request
 * target, a malformed header line, an unknown method) never reaches the app.
 * It still gets a problem+json answer, as every refusal of the room does,
 * and the connection is closed: nothing after the bad bytes can be trusted.
 */
export function answerUnparsableRequest(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // An answer to HEAD has no body, even when the rest of the request could not be read.
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // HTTP's status for it, with the room's code for a size limit (a task id repeated in Mcp-Name counts).
    socket.end(problem(431, `the request's headers are larger than ${maxHeaderSize} bytes in all`, head));
    return;
  }
  socket.end(problem(400, 'the request is not valid HTTP/1.1', head));
}

/** A TLS record's first byte when it carries a handshake, as a client's first bytes do (RFC 8446, 5.1). */
const HANDSHAKE_RECORD = 22;
/** How long a connection may say nothing before its first byte: node's own TLS handshake timeout. */
const FIRST_BYTE_MS = 120_000;
/** How long a plain connection that was answered may go on sending before it is cut. */
const LINGER_MS = 5_000;

/**
 * A room that serves HTTPS answers a client that spoke plain HTTP to it (an
 * http:// address where https:// was meant) with a 400 that says to use
 * https, where the handshake failed and the client saw its connection
 * reset. A connection's first byte tells: a TLS client begins with a
 * handshake record; anything else is answered and closed, its bytes never
 * read. The server still listens itself: node's own connection listener,
 * which starts TLS, is called once the first byte says TLS (left alone if
 * node ever has another).
 */
export function answerPlainHttp(server: TlsServer): void {
  const listeners = server.listeners('connection');
  if (listeners.length !== 1) return;
  const startTls = listeners[0] as (socket: Socket) => void;
  server.removeListener('connection', startTls);
  server.on('connection', (socket: Socket) => {
    const dropped = () => socket.destroy();
    socket.on('error', dropped); // a reset before the first byte: nothing to answer
    socket.setTimeout(FIRST_BYTE_MS, dropped);
    socket.once('data', (first: Buffer) => {
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(first);
      if (first[0] === HANDSHAKE_RECORD) {
        socket.off('error', dropped);
        startTls.call(server, socket);
        return;
      }
      // What it sends meanwhile is read and dropped: unread bytes would make the close a reset, losing the answer.
      socket.on('data', () => {}).resume();
      socket.setTimeout(LINGER_MS, dropped);
      socket.end(problem(400, 'this room serves HTTPS: the request came as plain HTTP; use an https:// address'));
    });
  });
}
