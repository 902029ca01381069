import type { Duplex } from 'node:stream';

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
  // A head larger than Node accepts keeps Node's own answer (431 has no room code of its own).
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    socket.end('HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n');
    return;
  }
  const body = JSON.stringify({
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    detail: 'the request is not valid HTTP/1.1',
    code: 'invalid_input',
  });
  // An answer to HEAD has no body, even when the rest of the request could not be read.
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    'HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}
