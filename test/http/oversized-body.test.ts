// A body over 1 MiB is answered 413 before it is parsed, and the client
// gets that answer: the room reads and drops the rest of the body (up to
// 16 MiB) instead of closing under the upload, which makes the client's
// system reset the connection, often before the answer is read. A body read
// to its end leaves the connection usable; a larger one closes it. A body
// sent in chunks (no Content-Length) is read like any other: only a request
// with neither header has none (RFC 9112, 6.3), and is not waited for.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

/** One connection: raw bytes out, and the answers as they arrive. */
function connection(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(s.http.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', () => {}); // a reset shows as the answer missing
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
    socket.once('error', reject);
  });
}

const head = (path: string, length: number | 'chunked') =>
  `POST ${path} HTTP/1.1\r\nHost: ${new URL(s.http.baseUrl).host}\r\nAuthorization: Bearer ${s.tokens.alice}\r\nContent-Type: application/json\r\n` +
  (length === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) +
  '\r\n';

const artifactRead = () =>
  `GET /workspace/artifact HTTP/1.1\r\nHost: ${new URL(s.http.baseUrl).host}\r\nAuthorization: Bearer ${s.tokens.alice}\r\n\r\n`;

/** Writes all of it, as fast as the socket takes it; resolves whether or not the room read it all. */
function sendAll(socket: Socket, chunks: Buffer[]): Promise<void> {
  return new Promise((resolve) => {
    let at = 0;
    const more = () => {
      while (at < chunks.length) {
        if (socket.destroyed) return resolve();
        if (!socket.write(chunks[at++]!)) return void socket.once('drain', more);
      }
      resolve();
    };
    more();
  });
}

const MiB = 1024 * 1024;
const piece = Buffer.alloc(64 * 1024, 'x');

it.each([
  ['with Content-Length', '/workspace/handoffs', 'length'],
  ['chunked', '/workspace/handoffs', 'chunked'],
  ['with Content-Length, on /mcp', '/mcp', 'length'],
] as const)(
  '3 MiB %s: 413 is read by the client, and the same connection answers the next request',
  async (_, path, how) => {
    const { socket, received } = await connection();
    const size = 3 * MiB;
    const chunks: Buffer[] = [Buffer.from(head(path, how === 'chunked' ? 'chunked' : size))];
    for (let sent = 0; sent < size; sent += piece.length) {
      chunks.push(
        how === 'chunked'
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece,
      );
    }
    if (how === 'chunked') chunks.push(Buffer.from('0\r\n\r\n'));
    await sendAll(socket, chunks);
    socket.write(artifactRead());
    await expect.poll(() => received().match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0, { timeout: 20_000 }).toBe(2);
    const [first, second] = received().split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(first).toMatch(/^HTTP\/1\.1 413 /);
    expect(first).not.toMatch(/\r\nConnection: close/i);
    expect(first).toContain(`the request body is larger than ${MiB} bytes`);
    expect(second).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  },
);

it('a body declared over 16 MiB: 413 at once, and the connection closes', async () => {
  const { socket, received, closed } = await connection();
  socket.write(head('/workspace/handoffs', 64 * MiB));
  await closed;
  expect(received()).toMatch(/^HTTP\/1\.1 413 /);
  expect(received()).toMatch(/\r\nConnection: close/i);
});

it('a body sent in chunks, with no Content-Length, is read; a request with neither header has none', async () => {
  const { socket, received } = await connection();
  const body = Buffer.from(JSON.stringify({ summary: 'Sent in chunks' }));
  const halves = [body.subarray(0, 10), body.subarray(10)].map((half) =>
    Buffer.concat([Buffer.from(`${half.length.toString(16)}\r\n`), half, Buffer.from('\r\n')]),
  );
  await sendAll(socket, [Buffer.from(head('/workspace/handoffs', 'chunked')), ...halves, Buffer.from('0\r\n\r\n')]);
  // No Content-Length, no Transfer-Encoding: no body, the same answer as an empty one.
  const noBody = head('/workspace/handoffs', 0).replace('Content-Length: 0\r\n', '');
  socket.write(noBody);
  await expect.poll(() => received().match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0, { timeout: 10_000 }).toBe(2);
  const [first, second] = received().split(/(?=HTTP\/1\.1 \d{3} )/);
  expect(first).toMatch(/^HTTP\/1\.1 201 /);
  expect(first).toContain('Sent in chunks');
  expect(second).toMatch(/^HTTP\/1\.1 400 /);
  socket.destroy();
});
